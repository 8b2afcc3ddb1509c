"""A small website on 127.0.0.1 for web_fetch tests: HTML, redirects, 404, a slow page, a huge page."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from tests.fakes.loopback import QuietHandler, serve_handler

PAGE = """<!doctype html><html><head><title>Test  Page</title><script>alert('x')</script>
<style>body { color: red }</style></head><body><nav><a href="/">Home</a> <a href="/about">About</a></nav>
<h1>Welcome</h1><p>The answer is <b>42</b>. See <a href="/docs/intro.html">the intro</a>.</p>
<h2>Steps</h2><ol><li>first</li><li>second</li></ol></body></html>"""


class _Handler(QuietHandler):
    def do_GET(self) -> None:
        port = self.server.server_address[1]
        match self.path:
            case "/page":
                self.send(200, PAGE.encode())
            case "/latin1":
                self.send(200, "café au lait".encode("latin-1"), "text/plain; charset=iso-8859-1")
            case "/redirect":
                self.send(302, b"", headers={"Location": "/page"})
            case "/loop":
                self.send(302, b"", headers={"Location": "/loop"})
            case "/to-localhost":
                self.send(302, b"", headers={"Location": f"http://127.0.0.2:{port}/page"})
            case "/slow":
                time.sleep(3)
                self.send(200, b"<p>late</p>")
            case "/huge":
                line = b"<p>" + b"lorem ipsum " * 80 + b"</p>\n"
                self.send(200, line * 20_000)
            case "/image":
                self.send(200, b"\x89PNG\r\n\x1a\n" + b"\x00" * 100, "image/png")
            case _:
                self.send(404, b"<h1>Not found</h1>")


@contextmanager
def serve_site() -> Iterator[str]:
    """Yields the base URL, e.g. http://127.0.0.1:PORT"""
    with serve_handler(_Handler) as base_url:
        yield base_url
