"""A fake Gemini REST server on 127.0.0.1: plays scripted replies as SSE and records every request.

It speaks enough of `v1beta/models/{model}:streamGenerateContent?alt=sse` (and `:generateContent`) for the
real google-genai client, on any path (Vertex AI's `v1beta1/projects/{p}/locations/{l}/publishers/google/models/
{model}:streamGenerateContent` too), and answers `POST /token` as an OAuth token endpoint would (for an
application-default-credentials file whose `token_uri` points here). It runs its own event loop in a thread,
so sync tests, async tests and subprocesses
(through `GOOGLE_GEMINI_BASE_URL`) can all use it:

    with FakeGeminiServer() as server:
        server.script(reply(text("Looking."), call("list_directory", path="/r")), reply(text("Done.")))
        env = {"GOOGLE_GEMINI_BASE_URL": server.base_url, "GEMINI_API_KEY": "test-key"}
        ...
        server.function_responses(1)  # what the client sent back after the first reply
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from tests.fakes.loopback import HttpRequest, ScriptedServer, StreamedReply, send_body, send_events, send_json

TOKEN_PATH = "/token"
ACCESS_TOKEN = "ya29.fake-access-token"
DEFAULT_USAGE = {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}


# -- building replies --------------------------------------------------------------------------------------------
def text(value: str) -> dict[str, Any]:
    return {"text": value}


def thought(value: str) -> dict[str, Any]:
    return {"text": value, "thought": True}


def call(name: str, args: dict[str, Any] | None = None, /, **kwargs: Any) -> dict[str, Any]:
    """A functionCall part (no id, like the Gemini API; the client makes one up)."""
    return {"functionCall": {"name": name, "args": {**(args or {}), **kwargs}}}


@dataclass
class Reply(StreamedReply):
    """One response (`chunks` are GenerateContentResponse JSON). Besides what any scripted reply can do (see
    StreamedReply): `body` replaces the whole 200 response (an HTML proxy page) as `content_type`."""

    body: bytes | None = None
    content_type: str = "text/html"


def reply(*parts: dict[str, Any], usage: dict[str, Any] | None = None, finish: str = "STOP",
          split: bool = True, delay_s: float = 0.0, cut_after: int | None = None) -> Reply:
    """A streamed model turn: one chunk per part when `split`, the last one carrying finishReason and usage."""
    groups = [[p] for p in parts] if split else [list(parts)]
    if not groups:
        groups = [[text("")]]
    chunks = [{"candidates": [{"content": {"role": "model", "parts": group}, "index": 0}]} for group in groups]
    chunks[-1]["candidates"][0]["finishReason"] = finish
    chunks[-1]["usageMetadata"] = usage or DEFAULT_USAGE
    return Reply(chunks=chunks, delay_s=delay_s, cut_after=cut_after)


def error_reply(status: int, message: str, *, retry_delay: str | None = None,
                headers: dict[str, str] | None = None) -> Reply:
    """An API error shaped like Google's (`google.rpc.Status`), with RetryInfo when `retry_delay` is set."""
    names = {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED",
             500: "INTERNAL", 503: "UNAVAILABLE"}
    details = []
    if retry_delay is not None:
        details.append({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retry_delay})
    body = {"error": {"code": status, "message": message, "status": names.get(status, "UNKNOWN"),
                      "details": details}}
    return Reply(status=status, error=body, headers=dict(headers or {}))


# -- recorded requests -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def model(self) -> str:
        return self.path.rsplit("/", 1)[-1].split(":", 1)[0]

    @property
    def contents(self) -> list[dict[str, Any]]:
        return list(self.body.get("contents", []))

    def function_responses(self) -> list[dict[str, Any]]:
        """The functionResponse parts of the last content (what the client answered to the calls)."""
        if not self.contents:
            return []
        return [p["functionResponse"] for p in self.contents[-1].get("parts", []) if "functionResponse" in p]

    def function_names(self) -> list[str]:
        tools = self.body.get("tools") or []
        return [d["name"] for t in tools for d in t.get("functionDeclarations", [])]


class FakeGeminiServer(ScriptedServer[Reply]):
    """Serves scripted replies in order; when the script runs out it answers "OK." so a stray request still
    ends cleanly (and shows up in `requests`)."""

    thread_name = "fake-gemini"

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[RecordedRequest] = []
        self.token_requests: list[dict[str, str]] = []  # form fields posted to TOKEN_PATH
        # answers by what was asked (a long run of calls, summarising requests apart); None: the script's next
        self.responder: Callable[[RecordedRequest], Reply | None] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def reset(self) -> None:
        """As if new (the same port): for a test that shares the server, and the agent using it, with others."""
        self.forget_script()
        self.requests.clear()
        self.token_requests.clear()
        self.responder = None
        self.request_arrived.clear()

    def function_responses(self, index: int) -> list[dict[str, Any]]:
        return self.requests[index].function_responses()

    def default_reply(self) -> Reply:
        return reply(text("OK."))

    async def respond(self, request: HttpRequest, writer: asyncio.StreamWriter) -> bool:
        if request.path == TOKEN_PATH:  # an OAuth token endpoint, for credentials files whose token_uri points here
            self.token_requests.append({k: v[0] for k, v in parse_qs(request.body.decode()).items()})
            await send_json(writer, 200, {"access_token": ACCESS_TOKEN, "expires_in": 3600, "token_type": "Bearer"})
            return True
        self.requests.append(RecordedRequest(request.method, request.path, request.query, request.headers,
                                             request.json()))
        self.request_arrived.set()
        answered = self.responder(self.requests[-1]) if self.responder is not None else None
        scripted = answered if answered is not None else self.next_reply()
        if scripted.status >= 400:
            await send_json(writer, scripted.status, scripted.error or {}, scripted.headers)
        elif scripted.body is not None:
            await send_body(writer, 200, scripted.body, scripted.content_type)
        elif ":streamGenerateContent" not in request.path:
            if scripted.delay_s:
                await asyncio.sleep(scripted.delay_s)
            await send_json(writer, 200, _merge(scripted.chunks))
        else:
            payloads = scripted.raw_events if scripted.raw_events is not None else [json.dumps(c) for c in
                                                                                     scripted.chunks]
            return await send_events(writer, scripted, payloads, line_end="\r\n")
        return True


def _merge(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The non-streaming answer: every chunk's parts in one candidate."""
    parts = [p for c in chunks for cand in c.get("candidates", []) for p in cand["content"]["parts"]]
    last = chunks[-1] if chunks else {}
    merged: dict[str, Any] = {"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0,
                                              "finishReason": "STOP"}]}
    if "usageMetadata" in last:
        merged["usageMetadata"] = last["usageMetadata"]
    return merged
