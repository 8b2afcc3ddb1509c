"""What the fake servers on 127.0.0.1 share: a thread of their own (so sync tests, async tests and subprocesses can
all reach them), started and stopped as a context manager.

`ScriptedServer` is the asyncio base of the fake model servers (Gemini, OpenAI-compatible): it reads HTTP/1.1
requests on kept-alive connections, plays scripted replies in order, writes JSON and chunked SSE answers, and
can drop a connection with a reset or stall mid-stream. `serve_handler` runs a `http.server` handler (the small
website, the search endpoint), and `QuietHandler` is the handler base they share."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import struct
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Generic, Self, TypeVar
from urllib.parse import parse_qs, urlsplit


@dataclass
class StreamedReply:
    """What every scripted answer can do. `chunks` are the SSE payloads (JSON); with `status` >= 400 the body is
    `error` as JSON; `headers` are extra response headers (e.g. Retry-After); `delay_s` waits before each chunk;
    `cut_after` resets the connection after that many chunks; `raw_events` are sent verbatim as `data:` payloads
    (need not be JSON) instead of `chunks`; after `stall_after` chunks the server stops for `stall_s` seconds."""

    chunks: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    error: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    cut_after: int | None = None
    raw_events: list[str] | None = None
    stall_after: int | None = None
    stall_s: float = 0.0


@dataclass(frozen=True)
class HttpRequest:
    method: str
    target: str
    headers: dict[str, str]  # names in lower case
    body: bytes

    @property
    def path(self) -> str:
        return urlsplit(self.target).path

    @property
    def query(self) -> dict[str, list[str]]:
        return parse_qs(urlsplit(self.target).query)

    def json(self) -> Any:
        return json.loads(self.body) if self.body else {}


ReplyT = TypeVar("ReplyT", bound=StreamedReply)


class ScriptedServer(Generic[ReplyT]):
    """An asyncio HTTP server on 127.0.0.1 in its own thread. A subclass answers each request in `respond`
    (returning False to close the connection) and names the reply given when the script has run out."""

    thread_name = "fake-server"

    def __init__(self) -> None:
        self._script: deque[ReplyT] = deque()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._writers: set[asyncio.StreamWriter] = set()
        self.port = 0
        self.request_arrived = threading.Event()

    # lifecycle
    def start(self) -> Self:
        self._thread = threading.Thread(target=self._serve, name=self.thread_name, daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError(f"{self.thread_name} did not start")
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

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # scripting
    def script(self, *replies: ReplyT) -> None:
        with self._lock:
            self._script.extend(replies)

    def forget_script(self) -> None:
        with self._lock:
            self._script.clear()

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._script)

    def next_reply(self) -> ReplyT:
        with self._lock:
            return self._script.popleft() if self._script else self.default_reply()

    def default_reply(self) -> ReplyT:
        raise NotImplementedError

    async def respond(self, request: HttpRequest, writer: asyncio.StreamWriter) -> bool:
        raise NotImplementedError

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

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            while (request := await _read_request(reader)) is not None and await self.respond(request, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._writers.discard(writer)
            with contextlib.suppress(Exception):
                writer.close()


async def _read_request(reader: asyncio.StreamReader) -> HttpRequest | None:
    """The next request on the connection (None: the client closed it)."""
    request_line = await reader.readline()
    if not request_line:
        return None
    method, target, _ = request_line.decode("latin-1").split(" ", 2)
    headers: dict[str, str] = {}
    while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    return HttpRequest(method, target, headers, await reader.readexactly(length) if length else b"")


async def send_body(writer: asyncio.StreamWriter, status: int, payload: bytes, content_type: str,
                    headers: dict[str, str] | None = None) -> None:
    extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    writer.write((f"HTTP/1.1 {status} {'OK' if status < 400 else 'Error'}\r\nContent-Type: {content_type}\r\n"
                  f"{extra}Content-Length: {len(payload)}\r\n\r\n").encode() + payload)
    await writer.drain()


async def send_json(writer: asyncio.StreamWriter, status: int, body: Any,
                    headers: dict[str, str] | None = None) -> None:
    await send_body(writer, status, json.dumps(body).encode(), "application/json", headers)


async def send_events(writer: asyncio.StreamWriter, reply: StreamedReply, payloads: list[str],
                      line_end: str = "\n") -> bool:
    """`payloads` as chunked SSE `data:` events, with the reply's pauses, stall and cut; False when the connection
    was dropped (a cut), True when the stream ended normally and the connection can serve another request."""
    writer.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
                  + "".join(f"{k}: {v}\r\n" for k, v in reply.headers.items()) + "\r\n").encode())
    for number, payload in enumerate(payloads):
        if reply.cut_after is not None and number >= reply.cut_after:
            reset(writer)
            return False
        if reply.stall_after is not None and number == reply.stall_after:
            await asyncio.sleep(reply.stall_s)
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        event = f"data: {payload}{line_end}{line_end}".encode()
        writer.write(f"{len(event):x}\r\n".encode() + event + b"\r\n")
        await writer.drain()
    if reply.cut_after is not None:
        reset(writer)
        return False
    writer.write(b"0\r\n\r\n")
    await writer.drain()
    return True


def reset(writer: asyncio.StreamWriter) -> None:
    """Drop the connection with a TCP reset, as a broken network would."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


class QuietHandler(BaseHTTPRequestHandler):
    """A `http.server` handler that logs nothing and answers in one call."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def send(self, status: int, body: bytes, content_type: str = "text/html; charset=utf-8",
             headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(body)


@contextmanager
def serve_handler(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serves `handler` on 127.0.0.1 in a thread until the block ends; yields the base URL (http://127.0.0.1:PORT)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
