"""A small website on 127.0.0.1 for web_fetch tests: HTML, redirects, 404, a slow page, a huge page."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAGE = """<!doctype html><html><head><title>Test  Page</title><script>alert('x')</script>
<style>body { color: red }</style></head><body><nav><a href="/">Home</a> <a href="/about">About</a></nav>
<h1>Welcome</h1><p>The answer is <b>42</b>. See <a href="/docs/intro.html">the intro</a>.</p>
<h2>Steps</h2><ol><li>first</li><li>second</li></ol></body></html>"""


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, body: bytes, content_type: str = "text/html; charset=utf-8",
              headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self) -> None:
        port = self.server.server_address[1]
        match self.path:
            case "/page":
                self._send(200, PAGE.encode())
            case "/latin1":
                self._send(200, "café au lait".encode("latin-1"), "text/plain; charset=iso-8859-1")
            case "/redirect":
                self._send(302, b"", headers={"Location": "/page"})
            case "/loop":
                self._send(302, b"", headers={"Location": "/loop"})
            case "/to-localhost":
                self._send(302, b"", headers={"Location": f"http://127.0.0.2:{port}/page"})
            case "/slow":
                time.sleep(3)
                self._send(200, b"<p>late</p>")
            case "/huge":
                line = b"<p>" + b"lorem ipsum " * 80 + b"</p>\n"
                self._send(200, line * 20_000)
            case "/image":
                self._send(200, b"\x89PNG\r\n\x1a\n" + b"\x00" * 100, "image/png")
            case _:
                self._send(404, b"<h1>Not found</h1>")


@contextmanager
def serve_site() -> Iterator[str]:
    """Yields the base URL, e.g. http://127.0.0.1:PORT"""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
