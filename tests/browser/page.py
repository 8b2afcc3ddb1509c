"""`gemini-tui serve` against the fake Gemini server, and headless Chromium (Debian's) driven by Playwright: start
the server, open pages, read and type into the terminal the page draws."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gemini_tui.core.processes.process_tree import descendants

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

    from tests.fakes.gemini_server import FakeGeminiServer

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]
GEMINI_TUI = Path(sys.executable).parent / "gemini-tui"
# The page's terminal is drawn on a canvas: to read it, the test keeps the xterm.js Terminal the page's script
# creates (its constructor assigns `this.terminal`; a setter on Object.prototype sees that first assignment).
KEEP_TERMINAL = """
Object.defineProperty(Object.prototype, "terminal", {configurable: true, set(value) {
  window.__terminal = value;
  Object.defineProperty(this, "terminal", {value, writable: true, configurable: true, enumerable: true});
}});
// and every byte the app sends to the page, to look for what only a terminal understands
window.__received = [];
const NativeSocket = window.WebSocket;
window.WebSocket = class extends NativeSocket {
  constructor(...args) {
    super(...args);
    const decoder = new TextDecoder("latin1");
    this.addEventListener("message", (event) => {
      if (typeof event.data !== "string") window.__received.push(decoder.decode(event.data));
    });
  }
};
"""
READ_SCREEN = """() => {
  const terminal = window.__terminal;
  if (!terminal) return "";
  const buffer = terminal.buffer.active, rows = [];
  for (let i = 0; i < terminal.rows; i++) {
    const line = buffer.getLine(buffer.viewportY + i);
    rows.push(line ? line.translateToString(true) : "");
  }
  return rows.join("\\n");
}"""


def launch(playwright: Any) -> Browser:
    assert CHROMIUM.exists(), "the browser tests need Debian's chromium (make test-browser installs it)"
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)


def own_address() -> str:
    """An address of this machine that is not loopback (the route out, no packet sent), else the wildcard."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))
        address = probe.getsockname()[0]
    except OSError:
        address = ""
    finally:
        probe.close()
    return address if address and not address.startswith("127.") else "0.0.0.0"


class Served:
    """One `gemini-tui serve` process; `close()` stops it as Ctrl+C would."""

    def __init__(self, root: Path, home: Path, server: FakeGeminiServer, *options: str) -> None:
        env = {**os.environ, "GEMINI_API_KEY": "test", "GOOGLE_GEMINI_BASE_URL": server.base_url,
               "HOME": str(home), "GEMINI_CLI_HOME": str(home), "PYTHONUNBUFFERED": "1"}
        for name in ("GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GEMINI_MODEL", "GEMINI_SANDBOX"):
            env.pop(name, None)
        self.process = subprocess.Popen([str(GEMINI_TUI), "serve", "--port", "0", *options], cwd=root, env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.output: list[str] = []
        deadline = time.monotonic() + 30
        assert self.process.stdout is not None
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            self.output.append(line)
            if found := re.search(r"at (http://\S+)", line):
                self.url = found.group(1)
                # what it prints from now on is kept too: a full pipe would stop the server
                threading.Thread(target=self._keep_reading, daemon=True).start()
                return
        self.close()
        raise AssertionError("serve printed no URL:\n" + "".join(self.output))

    def _keep_reading(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line)

    @property
    def pid(self) -> int:
        return self.process.pid

    def apps(self) -> list[int]:
        """The processes below the server (each page's app, and what it started)."""
        return descendants(self.pid)

    def close(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


@contextmanager
def serve(root: Path, home: Path, server: FakeGeminiServer, *options: str) -> Iterator[Served]:
    served = Served(root, home, server, *options)
    try:
        yield served
    finally:
        served.close()


def screen(page: Page) -> str:
    return str(page.evaluate(READ_SCREEN))


def received(page: Page) -> str:
    """Everything the page's app has sent it so far (its screen output), as Latin-1."""
    return str(page.evaluate("() => window.__received.join('')"))


def wait_for(page: Page, predicate: Callable[[str], object] | str, timeout: float = 20.0) -> str:
    check = (lambda text: predicate in text) if isinstance(predicate, str) else predicate
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = screen(page)
        if check(text):
            return text
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {predicate!r}; the page showed:\n{text}")


def wait_until(condition: Callable[[], object], timeout: float = 10.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not reached within {timeout} s")
        time.sleep(0.1)


def open_page(browser: Browser, url: str, width: int = 1200, height: int = 800,
              permissions: list[str] | None = None) -> Page:
    """A page in its own browser context (as a separate tab would be), once the app's prompt is up."""
    context = browser.new_context(viewport={"width": width, "height": height}, permissions=permissions or [])
    page = context.new_page()
    page.add_init_script(KEEP_TERMINAL)
    page.goto(url)
    wait_for(page, "Ask anything")
    page.locator(".xterm-helper-textarea").focus()  # where the page's keys go
    return page


def cell(page: Page, column: int, row: int) -> tuple[float, float]:
    """The middle of a cell of the page's terminal, in page coordinates."""
    box = page.locator(".xterm-screen").bounding_box()
    assert box is not None
    columns, rows = page.evaluate("[window.__terminal.cols, window.__terminal.rows]")
    return box["x"] + (column + 0.5) * box["width"] / columns, box["y"] + (row + 0.5) * box["height"] / rows


def drag(page: Page, start: tuple[int, int], end: tuple[int, int]) -> None:
    """The mouse pressed on one cell and let go on another."""
    page.mouse.move(*cell(page, *start))
    page.mouse.down()
    page.mouse.move(*cell(page, *end), steps=8)
    time.sleep(0.3)
    page.mouse.up()


def send(page: Page, prompt: str) -> None:
    page.keyboard.type(prompt)
    page.keyboard.press("Enter")


def save(page: Page, name: str, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    page.screenshot(path=str(path))
    return path

