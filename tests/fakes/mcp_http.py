"""The fake MCP server (tests/fakes/mcp_server.py) served in-process over real HTTP on 127.0.0.1 by uvicorn,
in a thread: streamable HTTP at `/mcp`, or SSE at `/sse`."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from tests.fakes.mcp_server import server


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve_app(app: Any, port: int | None = None) -> Iterator[int]:
    """Serves an ASGI app on 127.0.0.1 in a thread until the block ends; yields its port."""
    port = port or free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="critical", lifespan="on")
    http = uvicorn.Server(config)
    thread = threading.Thread(target=http.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not http.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert http.started, "the HTTP server did not start"
    try:
        yield port
    finally:
        http.should_exit = True
        thread.join(10)


@contextmanager
def serve_mcp(transport: str = "http") -> Iterator[str]:
    """Yields the URL to configure (`httpUrl` for "http", `url` for "sse")."""
    app = server.streamable_http_app() if transport == "http" else server.sse_app()
    with serve_app(app) as port:
        yield f"http://127.0.0.1:{port}/mcp" if transport == "http" else f"http://127.0.0.1:{port}/sse"
