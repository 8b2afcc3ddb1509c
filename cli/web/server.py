"""The server of `gemini-tui serve` (cli front end): textual-serve's page client and app protocol, with one app
process per page that ends, with everything it started, when its page goes.

Each app leads its own session (so its process group goes with one signal) and is a child subreaper: whatever its
tools leave behind stays below it while it runs. When a page closes, its app is asked to quit (it closes its
session and ends its tools' process groups itself); one that has not left within QUIT_GRACE_S is killed with its
whole tree. The server is a subreaper too: what an app's tree still held when the app ended comes to the server,
which ends it (an orphan of a live app goes to that app, never here)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shlex
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from gemini_tui.cli.web.access import Access
from gemini_tui.core.processes.process_tree import alive, become_subreaper, children, end_tree, reap

log = logging.getLogger("gemini-tui.serve")

QUIT_GRACE_S = 3.0  # a page's app leaves on its own within this (session closed, children ended), else killed
SWEEP_EVERY_S = 2.0  # how often orphans that came to the server are ended
HEARTBEAT_S = 5.0  # a browser gone without closing its socket (network lost) is noticed within about twice this
PAGE_META = frozenset({"page_title", "page_notify"})  # what the app sends for the page itself (see page.html)
SERVED_ENV = "GEMINI_TUI_SERVED"  # set in each page's app
SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",  # the token in the page's URL goes nowhere else
    "X-Frame-Options": "DENY",  # no other site may frame the page and have the user type `y` into it
    "Content-Security-Policy": "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
}


class Page(AppService):
    """One page's app: started as its own session leader with `argv` in `cwd`."""

    def __init__(self, argv: list[str], cwd: Path, **kwargs: Any) -> None:
        super().__init__(shlex.join(argv), **kwargs)
        self.argv = argv
        self.cwd = cwd

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    async def _open_app_process(self, width: int = 80, height: int = 24) -> asyncio.subprocess.Process:
        environment = self._build_environment(width=width, height=height)
        environment[SERVED_ENV] = "1"
        # textual-serve runs a shell command line; an argument vector leaves nothing for a shell to interpret
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=environment, cwd=self.cwd, start_new_session=True)
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def on_meta(self, data: bytes) -> None:
        meta = json.loads(data)
        if isinstance(meta, dict) and meta.get("type") in PAGE_META:
            with contextlib.suppress(ConnectionError, RuntimeError):  # the page may be gone already
                await self.remote_write_str(json.dumps(["gemini-tui", meta]))
            return
        await super().on_meta(data)

    def when_app_ends(self, callback: Callable[[], object]) -> None:
        """`callback` runs when the app's output ends (it quit, or died): its page is closed then."""
        if self._task is not None:
            self._task.add_done_callback(lambda _task: callback())

    async def end(self, grace: float = QUIT_GRACE_S) -> None:
        """Ask the app to quit; past `grace`, kill it with its whole tree. Returns once it is collected."""
        process = self._process
        if process is None:
            return
        if process.returncode is None:
            with contextlib.suppress(Exception):  # its stdin may be closed: it is leaving anyway
                await asyncio.wait_for(self.send_meta({"type": "quit"}), 1.0)
            try:
                await asyncio.wait_for(process.wait(), grace)
            except TimeoutError:
                log.warning("the app of a closed page did not leave within %.0f s: killing it", grace)
                end_tree(process.pid)
                await process.wait()
        if self._task is not None:
            # what the app wrote last is read to its end; a grandchild holding the pipe open cannot hold us
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(self._task, 1.0)
            self._task = None


class WebServer(Server):
    """textual-serve's server with gemini-tui's page, access rules and process ending."""

    def __init__(self, argv: list[str], *, host: str, port: int, cwd: Path, access: Access,
                 title: str = "gemini-tui", grace: float = QUIT_GRACE_S) -> None:
        super().__init__(shlex.join(argv), host=host, port=port, title=title)
        self.argv = argv
        self.cwd = cwd
        self.access = access
        self.grace = grace
        self.templates_path = Path(__file__).parent
        self.pages: set[Page] = set()
        self._spawning = 0  # while an app is being started its pid is not known yet: no sweep then
        self.url = ""

    async def _make_app(self) -> web.Application:
        app = web.Application()
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes([
            web.get("/", self.handle_index, name="index"),
            web.get("/ws", self.handle_websocket),
            web.get("/ws/{token}", self.handle_websocket),
            web.static("/static", self.statics_path, name="static"),
        ])
        return app

    async def handle_index(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
        if (why := self.access.refusal(request.host, request.query.get("token"))) is not None:
            log.warning("page refused (%s): %s", request.remote, why)
            return web.Response(status=403, text=f"gemini-tui serve: refused: {why}\n", headers=SECURITY_HEADERS)
        token = self.access.page_token()
        scheme = "wss" if request.secure else "ws"
        context = {
            "title": self.title,
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "static_url": "/static/",
            "websocket_url": f"{scheme}://{request.host}/ws" + (f"/{token}" if token else ""),
        }
        response = aiohttp_jinja2.render_template("page.html", request, context)
        response.headers.update(SECURITY_HEADERS)
        return response

    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
        why = self.access.socket_refusal(request.host, request.headers.get("Origin"), request.match_info.get("token"))
        if why is not None:
            log.warning("connection refused (%s): %s", request.remote, why)
            return web.Response(status=403, text=f"gemini-tui serve: refused: {why}\n")
        websocket = web.WebSocketResponse(heartbeat=HEARTBEAT_S)
        await websocket.prepare(request)
        page = Page(self.argv, self.cwd, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                    close=websocket.close, download_manager=self.download_manager, debug=self.debug)
        self.pages.add(page)
        try:
            self._spawning += 1
            try:
                await page.start(to_int(request.query.get("width", "80"), 80),
                                 to_int(request.query.get("height", "24"), 24))
            finally:
                self._spawning -= 1
            page.when_app_ends(lambda: asyncio.ensure_future(websocket.close()))
            await self._process_messages(websocket, page)
        except Exception as error:  # a broken message: this page ends, the server goes on
            log.warning("page ended on an error: %r", error)
        finally:
            # shielded: the page's app is ended even when this handler is being cancelled (server stopping)
            await asyncio.shield(self._close_page(page, websocket))
        return websocket

    async def _close_page(self, page: Page, websocket: web.WebSocketResponse) -> None:
        try:
            await page.end(self.grace)
        finally:
            self.pages.discard(page)
            with contextlib.suppress(Exception):
                await websocket.close()
            self.sweep()

    def sweep(self) -> None:
        """Ends (and collects) the server's children that are no page's app: what ended apps left behind."""
        if self._spawning:
            return
        apps = {pid for page in self.pages if (pid := page.pid) is not None}
        for child in children(os.getpid()):
            if child in apps:
                continue
            if alive(child):
                log.info("ending process %d, left behind by a closed page", child)
                end_tree(child)
            reap(child)

    async def _sweep_often(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY_S)
            self.sweep()

    async def end_all(self) -> None:
        pages = list(self.pages)
        await asyncio.gather(*(page.end(self.grace) for page in pages), return_exceptions=True)
        self.pages.clear()
        for _ in range(10):  # what they left comes to us as they go
            self.sweep()
            if not children(os.getpid()):
                break
            await asyncio.sleep(0.1)

    async def run(self, announce: Callable[[str], None]) -> None:
        """Serve until SIGINT or SIGTERM, then end every page's app and all they started."""
        become_subreaper()
        runner = web.AppRunner(await self._make_app(), handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        await site.start()
        port = runner.addresses[0][1]
        self.url = page_url(self.host, port, self.access.page_token())
        announce(self.url)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(number, stop.set)
        sweeper = asyncio.create_task(self._sweep_often())
        try:
            await stop.wait()
        finally:
            sweeper.cancel()
            await self.end_all()
            await runner.cleanup()


def page_url(host: str, port: int, token: str) -> str:
    """The URL to open: a wildcard bind is shown as this machine's name."""
    if host in ("", "0.0.0.0", "::"):
        import socket

        host = socket.gethostname()
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/" + (f"?token={token}" if token else "")
