"""A scripted OpenAI-compatible server on 127.0.0.1: `POST /v1/chat/completions` (streamed as SSE or not) and
`GET /v1/models`, playing scripted replies in order and recording every request. Like the fake Gemini server,
it runs its own event loop in a thread, for sync tests, async tests and subprocesses (`OPENAI_BASE_URL`):

    with FakeOpenAIServer() as server:
        server.script(chat(say("Looking."), calls=[tool("list_directory", dir_path="/r")]), chat(say("Done.")))
        env = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "test-key"}
        ... -m openai/test-model ...
        server.requests[1].tool_messages()  # what the client sent back for the calls
"""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass
from typing import Any

from tests.fakes.loopback import HttpRequest, ScriptedServer, StreamedReply, send_events, send_json

DEFAULT_USAGE = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
_ids = itertools.count(1)


@dataclass(frozen=True)
class ToolCall:
    name: str
    args: dict[str, Any]
    id: str | None = None
    raw_arguments: str | None = None  # sent instead of json.dumps(args): malformed arguments


def tool(name: str, args: dict[str, Any] | None = None, /, *, call_id: str | None = None,
         raw: str | None = None, **kwargs: Any) -> ToolCall:
    return ToolCall(name, {**(args or {}), **kwargs}, call_id or f"call_{next(_ids)}", raw)


def say(value: str) -> str:
    return value


@dataclass
class Reply(StreamedReply):
    """One answer (`chunks` are ChatCompletionChunk JSON; a non-streamed request gets them merged into one
    ChatCompletion). Besides what any scripted reply can do (see StreamedReply): `done` sends the final
    `data: [DONE]`."""

    done: bool = True


def _chunk(delta: dict[str, Any] | None, finish: str | None = None, usage: dict[str, Any] | None = None,
           choices: bool = True) -> dict[str, Any]:
    body: dict[str, Any] = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0,
                            "model": "fake", "choices": []}
    if choices:
        body["choices"] = [{"index": 0, "delta": delta or {}, "finish_reason": finish}]
    if usage is not None:
        body["usage"] = usage
    return body


def chat(*texts: str, calls: list[ToolCall] | tuple[ToolCall, ...] = (), reasoning: str = "",
         finish: str | None = None, usage: dict[str, Any] | None = None, pieces: int = 3,
         interleave: bool = False, cut_after: int | None = None, delay_s: float = 0.0,
         usage_chunk: bool = True) -> Reply:
    """A streamed assistant turn: reasoning, then each text as a delta, then the calls, their arguments split
    into `pieces` deltas each (`interleave`: the calls' pieces alternate, as parallel calls may arrive), then
    the finish reason, then the usage chunk (`stream_options.include_usage`)."""
    chunks = [_chunk({"role": "assistant", "content": ""})]
    if reasoning:
        chunks.append(_chunk({"reasoning_content": reasoning}))
    chunks += [_chunk({"content": text}) for text in texts]
    per_call: list[list[dict[str, Any]]] = []
    for index, call in enumerate(calls):
        arguments = call.raw_arguments if call.raw_arguments is not None else json.dumps(call.args)
        size = max(1, -(-len(arguments) // pieces))
        parts = [arguments[i:i + size] for i in range(0, len(arguments), size)] or [""]
        deltas = [{"tool_calls": [{"index": index, "id": call.id, "type": "function",
                                   "function": {"name": call.name, "arguments": ""}}]}]
        deltas += [{"tool_calls": [{"index": index, "function": {"arguments": part}}]} for part in parts]
        per_call.append(deltas)
    if interleave:
        for group in itertools.zip_longest(*per_call):
            chunks += [_chunk(delta) for delta in group if delta is not None]
    else:
        chunks += [_chunk(delta) for deltas in per_call for delta in deltas]
    chunks.append(_chunk({}, finish or ("tool_calls" if calls else "stop")))
    if usage_chunk:
        chunks.append(_chunk(None, usage=usage or DEFAULT_USAGE, choices=False))
    return Reply(chunks=chunks, cut_after=cut_after, delay_s=delay_s)


def error(status: int, message: str, *, headers: dict[str, str] | None = None, ollama: bool = False) -> Reply:
    """An error as OpenAI-style servers send it (`{"error": {"message", "type", "code"}}`), or Ollama's
    `{"error": "..."}`."""
    body: Any = {"error": message} if ollama else {"error": {"message": message, "type": "error", "code": status}}
    return Reply(status=status, error=body, headers=dict(headers or {}))


def _merge(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The non-streamed ChatCompletion the chunks add up to."""
    content, calls, finish, usage = "", {}, "stop", None
    for chunk in chunks:
        usage = chunk.get("usage") or usage
        for choice in chunk.get("choices", []):
            delta = choice.get("delta", {})
            content += delta.get("content") or ""
            for call in delta.get("tool_calls") or []:
                slot = calls.setdefault(call["index"], {"id": None, "type": "function",
                                                        "function": {"name": "", "arguments": ""}})
                slot["id"] = call.get("id") or slot["id"]
                slot["function"]["name"] += call.get("function", {}).get("name") or ""
                slot["function"]["arguments"] += call.get("function", {}).get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    message: dict[str, Any] = {"role": "assistant", "content": content or None}
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": "fake",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage or DEFAULT_USAGE}


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    def tool_messages(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("role") == "tool"]

    def tool_names(self) -> list[str]:
        return [t["function"]["name"] for t in self.body.get("tools") or []]


class FakeOpenAIServer(ScriptedServer[Reply]):
    """Serves scripted replies in order; when the script runs out it answers "OK."; `models` is what
    `GET /v1/models` lists."""

    thread_name = "fake-openai"

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[RecordedRequest] = []
        self.models: list[dict[str, Any]] = [{"id": "test-model", "object": "model", "owned_by": "fake"}]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def default_reply(self) -> Reply:
        return chat(say("OK."))

    async def respond(self, request: HttpRequest, writer: asyncio.StreamWriter) -> bool:
        path = request.path
        self.requests.append(RecordedRequest(request.method, path, request.headers, request.json()))
        self.request_arrived.set()
        if request.method == "GET" and path.endswith("/models"):
            await send_json(writer, 200, {"object": "list", "data": self.models})
            return True
        if not path.endswith("/chat/completions"):
            await send_json(writer, 404, {"error": {"message": f"no route {path}"}})
            return True
        scripted = self.next_reply()
        if scripted.status >= 400:
            await send_json(writer, scripted.status, scripted.error or {}, scripted.headers)
            return True
        if not self.requests[-1].body.get("stream"):
            if scripted.delay_s:
                await asyncio.sleep(scripted.delay_s)
            await send_json(writer, 200, _merge(scripted.chunks), scripted.headers)
            return True
        payloads = scripted.raw_events if scripted.raw_events is not None else [json.dumps(c) for c in scripted.chunks]
        if scripted.done and scripted.raw_events is None:
            payloads = [*payloads, "[DONE]"]
        return await send_events(writer, scripted, payloads)
