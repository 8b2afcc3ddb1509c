"""The history a request carries is converted once per entry, and is byte for byte what google-genai's own
conversion of the whole history gives: through the real client to the fake Gemini server, over a table of every
kind of part, with entries added, changed in place and replaced between requests."""

from __future__ import annotations

import base64
import json
from typing import Any

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.model_api import Content, FunctionCall, FunctionResponse, ModelRequest, ThoughtPart
from gemini_tui.core.ground.parts import InlineDataPart, TextPart
from gemini_tui.core.models.gemini import GeminiModel, contents_to_sdk
from tests.fakes.gemini_server import FakeGeminiServer, reply, text

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()
# every kind of entry the history holds, the awkward ones among them
ENTRIES = {
    "prompt": lambda n: Content("user", [TextPart(f"prompt {n} \u00e9\U0001f600")]),
    "signed thought and call": lambda n: Content("model", [
        ThoughtPart(f"thinking {n}", signature=f"sig{n}".encode()),
        FunctionCall(f"c{n}", "read_file", {"file_path": f"f{n}.txt", "nested": [1, {"none": None}]},
                     signature=b"\x00\xff")]),
    "response with an image": lambda n: Content("user", [
        FunctionResponse(f"c{n}", "read_file", {"output": f"read {n}"}, parts=(InlineDataPart("image/png", PNG),))]),
    "error response": lambda n: Content("user", [FunctionResponse(f"c{n}", "shell", {"error": "no"})]),
    "unsigned thought only": lambda n: Content("model", [ThoughtPart(f"kept here {n}")]),  # sends nothing
    "no parts": lambda _n: Content("model", []),
    "answer": lambda n: Content("model", [TextPart(f"answer {n}")]),
}


def sdk_contents(history: list[Content]) -> list[dict[str, Any]]:
    """google-genai's own conversion of the whole history, as it reaches the server (JSON)."""
    from google.genai import _common, types
    from google.genai import models as sdk_models

    class Api:  # what the conversion reads of the client: which API it speaks
        vertexai = False

    parameters = types._GenerateContentParameters(model="gemini-2.5-pro", contents=contents_to_sdk(tuple(history)))
    body = sdk_models._GenerateContentParameters_to_mldev(Api(), parameters, None, parameters)
    return json.loads(json.dumps(_common.encode_unserializable_types(_common.convert_to_dict(body))["contents"]))


async def send(model: GeminiModel, server: FakeGeminiServer, history: list[Content]) -> list[dict[str, Any]]:
    server.script(reply(text("ok")))
    async for _ in model.stream(ModelRequest(tuple(history)), AbortSignal()):
        pass
    return server.requests[-1].contents


async def test_each_request_carries_what_the_sdk_would_send(gemini_server: FakeGeminiServer) -> None:
    model = GeminiModel("gemini-2.5-pro", "test-key", base_url=gemini_server.base_url)
    history: list[Content] = []
    for n, make in enumerate([*ENTRIES.values(), *ENTRIES.values()]):
        history.append(make(n))
        if n % 3 == 2:
            assert await send(model, gemini_server, history) == sdk_contents(history), n
    # an entry changed in place (a part added, a part replaced), and an entry replaced by another: sent as now
    history[0].parts.append(TextPart("added later"))
    history[1].parts[0] = ThoughtPart("another thought", signature=b"new")
    history[2] = ENTRIES["answer"](99)
    history[6].role = "user"
    assert await send(model, gemini_server, history) == sdk_contents(history)
    assert await send(model, gemini_server, history[3:]) == sdk_contents(history[3:])
