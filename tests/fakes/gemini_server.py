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
import contextlib
import json
import socket
import struct
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

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
class Reply:
    """One response. `chunks` are SSE payloads (GenerateContentResponse JSON). With `status` >= 400 the body
    is `error` as JSON. `delay_s` waits before each chunk; `cut_after` resets the connection after that many
    chunks; `headers` are extra response headers (e.g. Retry-After)."""

    chunks: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    error: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    cut_after: int | None = None
    # hostile replies: `raw_events` are sent verbatim as SSE `data:` payloads (need not be JSON) instead of
    # `chunks`; `body` replaces the whole 200 response (an HTML proxy page); after `stall_after` chunks the
    # server stops sending for `stall_s` seconds
    raw_events: list[str] | None = None
    body: bytes | None = None
    content_type: str = "text/html"
    stall_after: int | None = None
    stall_s: float = 0.0


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


class FakeGeminiServer:
    """Serves scripted replies in order; when the script runs out it answers "OK." so a stray request still
    ends cleanly (and shows up in `requests`)."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.token_requests: list[dict[str, str]] = []  # form fields posted to TOKEN_PATH
        self._script: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self.port = 0
        self.request_arrived = threading.Event()
        self._writers: set[asyncio.StreamWriter] = set()
        # answers by what was asked (a long run of calls, summarising requests apart); None: the script's next
        self.responder: Callable[[RecordedRequest], Reply | None] | None = None

    # lifecycle
    def start(self) -> FakeGeminiServer:
        self._thread = threading.Thread(target=self._serve, name="fake-gemini", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("fake Gemini server did not start")
        return self

    def stop(self) -> None:
        if self._loop is not None and self._server is not None:
            loop, server = self._loop, self._server

            async def shutdown() -> None:
                server.close()
                # streams still open (a cancelled client) would keep wait_closed() waiting: drop them too
                for writer in list(self._writers):
                    writer.transport.abort()
                handlers = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
                if handlers:  # they end on the dropped connection; one still pausing between chunks is cancelled
                    _, pausing = await asyncio.wait(handlers, timeout=0.2)
                    for task in pausing:
                        task.cancel()
                    await asyncio.gather(*pausing, return_exceptions=True)
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(server.wait_closed(), 2)
                loop.stop()

            asyncio.run_coroutine_threadsafe(shutdown(), loop)
        if self._thread is not None:
            self._thread.join(5)

    def __enter__(self) -> FakeGeminiServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # scripting
    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._script.extend(replies)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._script)

    def function_responses(self, index: int) -> list[dict[str, Any]]:
        return self.requests[index].function_responses()

    # serving
    def _serve(self) -> None:
        loop = self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._server = loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.close()

    def _next_reply(self) -> Reply:
        with self._lock:
            return self._script.popleft() if self._script else reply(text("OK."))

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            while await self._handle_one(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._writers.discard(writer)
            with contextlib.suppress(Exception):
                writer.close()

    async def _handle_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        request_line = await reader.readline()
        if not request_line:
            return False
        method, target, _ = request_line.decode("latin-1").split(" ", 2)
        headers: dict[str, str] = {}
        while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        raw = await reader.readexactly(length) if length else b""
        url = urlsplit(target)
        if url.path == TOKEN_PATH:  # an OAuth token endpoint, for credentials files whose token_uri points here
            self.token_requests.append({k: v[0] for k, v in parse_qs(raw.decode()).items()})
            payload = json.dumps({"access_token": ACCESS_TOKEN, "expires_in": 3600, "token_type": "Bearer"}).encode()
            writer.write((f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}"
                          "\r\n\r\n").encode() + payload)
            await writer.drain()
            return True
        body = json.loads(raw) if raw else {}
        self.requests.append(RecordedRequest(method, url.path, parse_qs(url.query), headers, body))
        self.request_arrived.set()
        answered = self.responder(self.requests[-1]) if self.responder is not None else None
        scripted = answered if answered is not None else self._next_reply()
        if scripted.status >= 400:
            payload = json.dumps(scripted.error or {}).encode()
            extra = "".join(f"{k}: {v}\r\n" for k, v in scripted.headers.items())
            writer.write((f"HTTP/1.1 {scripted.status} Error\r\nContent-Type: application/json\r\n{extra}"
                          f"Content-Length: {len(payload)}\r\n\r\n").encode() + payload)
            await writer.drain()
            return True
        if scripted.body is not None:
            writer.write((f"HTTP/1.1 200 OK\r\nContent-Type: {scripted.content_type}\r\n"
                          f"Content-Length: {len(scripted.body)}\r\n\r\n").encode() + scripted.body)
            await writer.drain()
            return True
        if ":streamGenerateContent" not in url.path:
            if scripted.delay_s:
                await asyncio.sleep(scripted.delay_s)
            merged = _merge(scripted.chunks)
            payload = json.dumps(merged).encode()
            writer.write((f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}"
                          "\r\n\r\n").encode() + payload)
            await writer.drain()
            return True
        extra = "".join(f"{k}: {v}\r\n" for k, v in scripted.headers.items())
        writer.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
                      f"{extra}\r\n").encode())
        payloads = scripted.raw_events if scripted.raw_events is not None else [json.dumps(c) for c in scripted.chunks]
        for number, payload in enumerate(payloads):
            if scripted.cut_after is not None and number >= scripted.cut_after:
                _reset(writer)
                return False
            if scripted.stall_after is not None and number == scripted.stall_after:
                await asyncio.sleep(scripted.stall_s)
            if scripted.delay_s:
                await asyncio.sleep(scripted.delay_s)
            event = f"data: {payload}\r\n\r\n".encode()
            writer.write(f"{len(event):x}\r\n".encode() + event + b"\r\n")
            await writer.drain()
        if scripted.cut_after is not None:
            _reset(writer)
            return False
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True


def _reset(writer: asyncio.StreamWriter) -> None:
    """Drop the connection with a TCP reset, as a broken network would."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


def _merge(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The non-streaming answer: every chunk's parts in one candidate."""
    parts = [p for c in chunks for cand in c.get("candidates", []) for p in cand["content"]["parts"]]
    last = chunks[-1] if chunks else {}
    merged: dict[str, Any] = {"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0,
                                              "finishReason": "STOP"}]}
    if "usageMetadata" in last:
        merged["usageMetadata"] = last["usageMetadata"]
    return merged
