"""`gemini-tui serve` in a real browser (headless Chromium through Playwright) against the fake Gemini server:
the page shows the app, takes prompts and confirmations, reviews diffs, gets its own session, leaves no process
when closed; a page without the token is refused when the server is not on loopback.

Run by `make test` among the suite's tests (GEMINI_TUI_BROWSER=1; alone: `make test-browser`); screenshots go to
$GEMINI_TUI_SCREENSHOTS (else pytest's temporary folder)."""

from __future__ import annotations

import os
import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from gemini_tui.app.typing_guard import GRACE_PERIOD
from gemini_tui.core.processes.process_tree import alive
from tests.browser.page import cell, drag, launch, open_page, received, save, send, serve, wait_for, wait_until
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

GRACE = GRACE_PERIOD + 0.3  # past the quiet spell after which a confirmation takes keys
# what only a terminal understands: the title stack (push, pop), the window title, the desktop notification
TERMINAL_ONLY = ("\x1b[22;0t", "\x1b[23;0t", "\x1b]2;", "\x1b]0;", "\x1b]9;", "\x1b]777;")
pytestmark = pytest.mark.xdist_group("browser")  # one worker, one Chromium for the module


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as fake:
        yield fake


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    return Path(os.environ.get("GEMINI_TUI_SCREENSHOTS") or tmp_path / "screenshots")


def click_link(page: Any, at: tuple[float, float], away: tuple[float, float]) -> Any:
    """The tab a click on the link at `at` opens. xterm.js finds a link when the mouse moves onto it, and forgets
    it when its row is drawn again: on a loaded machine a redraw can land between the two, and that click opens
    nothing. The mouse then leaves (to `away`) and clicks the link again, until a tab opens."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for _ in range(5):
        try:
            with page.context.expect_page(timeout=4_000) as opened:
                page.mouse.click(*at)
            return opened.value
        except PlaywrightTimeout:
            page.mouse.move(*away)
    raise AssertionError("no tab opened for the link")


def test_a_page_shows_the_app_and_a_prompt_gets_the_answer(browser, root: Path, home: Path,
                                                           server: FakeGeminiServer, shots: Path) -> None:
    link = f"{server.base_url}/a-linked-page"
    answer = f"Hello from the scripted model, in a browser tab: see {link} for more."
    server.script(reply(text(answer)))
    with serve(root, home, server) as served:
        page = open_page(browser, served.url, permissions=["clipboard-read", "clipboard-write"])  # type: ignore
        send(page, "say hello")
        shown = wait_for(page, answer)
        save(page, "web-answer", shots)
        assert "say hello" in str(server.requests[0].contents[-1])
        assert page.title() == "gemini-tui"

        # copy: drag over the start of the answer, Ctrl+C: the browser's clipboard has it
        row = next(i for i, line in enumerate(shown.splitlines()) if answer in line)
        column = shown.splitlines()[row].index("Hello")
        drag(page, (column, row), (column + 9, row))
        page.keyboard.press("Control+c")
        wait_for(page, "Copied 10 characters")
        assert page.evaluate("navigator.clipboard.readText()") == "Hello from"
        page.mouse.dblclick(*cell(page, column + 2, row))  # a double click copies the whole answer
        wait_until(lambda: page.evaluate("navigator.clipboard.readText()") == answer, what="the answer copied")

        # a URL in the page opens in a new tab
        opened = click_link(page, cell(page, shown.splitlines()[row].index(link) + 5, row), cell(page, column, row))
        opened.wait_for_url(link, timeout=10_000)
        assert page.url.startswith(served.url.split("?")[0])  # the app's own page stays


def test_a_command_confirmed_with_y_in_the_page_runs(browser, root: Path, home: Path,
                                                    server: FakeGeminiServer, shots: Path) -> None:
    server.script(reply(text("Running it."), call("run_shell_command", command="echo from-the-page > made.txt")),
                  reply(text("The file is made.")))
    with serve(root, home, server) as served:
        page = open_page(browser, served.url)  # type: ignore[attr-defined]
        send(page, "make the file")
        wait_for(page, "echo from-the-page")
        wait_until(lambda: page.title().startswith("✋"), what="the page's title says a confirmation waits")
        save(page, "web-confirmation", shots)
        time.sleep(GRACE)
        page.keyboard.press("y")
        wait_for(page, "The file is made.")
        assert (root / "made.txt").read_text() == "from-the-page\n"
        wait_until(lambda: page.title() == "gemini-tui", what="the title back once answered")
        sent = received(page)
        for sequence in TERMINAL_ONLY:  # a confirmation in a terminal rings, notifies and retitles the window
            assert sequence not in sent, f"{sequence!r} reached the page"
        assert "\x07" not in re.sub(r"\x1b\][^\x07\x1b]*(\x07|\x1b\\)", "", sent)  # no bell (BEL ends an OSC)


def test_the_diff_review_opens_and_its_keys_work(browser, root: Path, home: Path, server: FakeGeminiServer,
                                                shots: Path) -> None:
    target = root / "greeting.txt"
    target.write_text("hello world\nsecond line\n")
    server.script(
        reply(call("replace", file_path=str(target), old_string="hello world", new_string="hello browser")),
        reply(text("Edited.")),
        reply(call("replace", file_path=str(target), old_string="second line", new_string="2nd line")),
        reply(text("Left it.")),
    )
    with serve(root, home, server) as served:
        page = open_page(browser, served.url)  # type: ignore[attr-defined]
        send(page, "change the greeting")
        review = wait_for(page, lambda s: "Confirm Edit" in s and "hello browser" in s)
        assert "$EDITOR" not in review  # off the key bar in a page: the editor would open on the server
        save(page, "web-diff-review", shots)
        time.sleep(GRACE)
        page.keyboard.press("Control+e")
        wait_for(page, "not available in a browser page")
        time.sleep(GRACE)
        page.keyboard.press("y")
        wait_for(page, "Edited.")
        assert target.read_text() == "hello browser\nsecond line\n"

        send(page, "now the second line")
        wait_for(page, lambda s: "Confirm Edit" in s and "2nd line" in s)
        time.sleep(GRACE)
        page.keyboard.press("Escape")
        wait_for(page, "Left it.")
        assert target.read_text() == "hello browser\nsecond line\n"


def test_closing_the_page_ends_its_app_and_everything_it_started(browser, root: Path, home: Path,
                                                                 server: FakeGeminiServer) -> None:
    marker = f"{time.time_ns() % 10**6}.5"  # a sleep nobody else runs
    # a process that leaves the command's process group on purpose: only the page's tree still holds it
    server.script(reply(call("run_shell_command", command=f"setsid sleep {marker} > /dev/null 2>&1 &")),
                  reply(text("Started in the background.")))
    # --no-sandbox: in the sandbox (its own process namespace) a background process ends with its command, so no
    # process would be left for the page's closing to end; here what is tested is the page's own process tree
    with serve(root, home, server, "--approval-mode", "yolo", "--no-sandbox") as served:
        page = open_page(browser, served.url)  # type: ignore[attr-defined]
        send(page, "start it")
        wait_for(page, "Started in the background.")
        sleeper = next(pid for pid in served.apps() if _command(pid) == ["sleep", marker])
        assert served.apps(), "the page's app runs below the server"
        closed_at = time.monotonic()
        page.context.close()
        wait_until(lambda: not served.apps(), timeout=8, what="no process left below the server")
        assert not alive(sleeper)
        assert time.monotonic() - closed_at < 8
        assert served.close() == 0


def test_a_second_page_gets_its_own_session(browser, root: Path, home: Path, server: FakeGeminiServer) -> None:
    server.script(reply(text("Only the first page asked.")))
    with serve(root, home, server) as served:
        first = open_page(browser, served.url)  # type: ignore[attr-defined]
        second = open_page(browser, served.url)  # type: ignore[attr-defined]
        apps = [pid for pid in served.apps() if "gemini_tui" in " ".join(_command(pid))]
        assert len(apps) == 2
        send(first, "who asked?")
        wait_for(first, "Only the first page asked.")
        time.sleep(0.5)
        assert "Only the first page asked." not in wait_for(second, "Ask anything")
        second.context.close()
        wait_until(lambda: len([p for p in served.apps() if "gemini_tui" in " ".join(_command(p))]) == 1,
                   what="the other page's app ended alone")
        send(first, "still here?")  # the first page's app is untouched
        wait_for(first, "still here?")
    assert served.process.returncode == 0
    assert not served.apps()


def test_a_page_without_the_token_is_refused_off_loopback(browser, root: Path, home: Path,
                                                         server: FakeGeminiServer) -> None:
    from tests.browser.page import own_address

    address = own_address()
    with serve(root, home, server, "--host", address) as served:
        printed = urlsplit(served.url)
        assert printed.query.startswith("token=")
        # with no other address on this machine, the wildcard bind (reached on loopback) has the same rule
        bare = f"http://{'127.0.0.1' if address == '0.0.0.0' else address}:{printed.port}/"
        url = f"{bare}?{printed.query}"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(bare, timeout=10)
        assert refused.value.code == 403
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(bare + "?token=wrong", timeout=10)
        context = browser.new_context()  # type: ignore[attr-defined]
        page = context.new_page()
        answer = page.goto(bare)
        assert answer is not None and answer.status == 403
        assert "needs the token" in page.inner_text("body")
        assert not served.apps()  # nothing was started for it
        context.close()
        page = open_page(browser, url)  # the printed URL works
        assert served.apps()
        page.context.close()


def _command(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")[:-1]
    except OSError:
        return []
