"""/copy in a real terminal: tmux with `set-clipboard on` takes the OSC 52 copy into its paste buffer, so after a
300-line answer the buffer holds exactly its Markdown; the same for one of its code blocks and a tool's output;
with set-clipboard off the app says the copy did not reach the clipboard."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.terminal import send, start_app
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

CODE = "def greet(name: str) -> str:\n    return f\"héllo {name}\"  # ünïcode, `ticks`\n\n\nprint(greet('x'))\n"
ANSWER = ("# Report\n\n" + "".join(f"- line {i}: **bold** `code` and trailing spaces  \n" for i in range(150))
          + "\n```python\n" + CODE + "```\n\n"
          + "".join(f"{i}. item with <angle> & ampersand\n" for i in range(1, 141)) + "\nThe end, no newline")


@pytest.fixture
def server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as fake:
        yield fake


def buffers() -> list[str]:
    names = subprocess.run(["tmux", "list-buffers", "-F", "#{buffer_name}"], capture_output=True,
                           text=True).stdout.split()
    return [subprocess.run(["tmux", "show-buffer", "-b", name], capture_output=True).stdout.decode()
            for name in names]


def wait_for_buffer(expected: str, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if expected in buffers():
            return
        time.sleep(0.1)
    raise AssertionError(f"no tmux buffer holds the {len(expected)} characters expected; "
                         f"buffers: {[len(b) for b in buffers()]}")


def clipboard(value: str) -> None:
    subprocess.run(["tmux", "start-server", ";", "set-option", "-g", "set-clipboard", value], check=True)


def test_copy_the_answer_a_code_block_and_a_tool_output(root: Path, tmp_path: Path,
                                                        server: FakeGeminiServer) -> None:
    assert ANSWER.count("\n") >= 299
    (root / "notes.txt").write_text("first\nsecond line\n")
    server.script(reply(call("read_file", file_path=str(root / "notes.txt"))), reply(text(ANSWER)))
    with start_app(root, tmp_path, server, 120, 40) as terminal:
        clipboard("on")
        send(terminal, "report please")
        terminal.wait_for("The end, no newline", timeout=30)
        send(terminal, "/copy")
        terminal.wait_for("Copied the last answer's Markdown")
        wait_for_buffer(ANSWER)
        send(terminal, "/copy code")
        terminal.wait_for("Copied code block 1 of 1")
        wait_for_buffer(CODE)
        send(terminal, "/copy tool")
        terminal.wait_for("Copied the output of read_file")
        wait_for_buffer("first\nsecond line\n")


def test_a_terminal_that_will_not_take_it_is_said(root: Path, tmp_path: Path, server: FakeGeminiServer) -> None:
    server.script(reply(text("short answer")))
    with start_app(root, tmp_path, server, 120, 30) as terminal:
        clipboard("off")
        try:
            send(terminal, "hi")
            terminal.wait_for("short answer")
            send(terminal, "/copy")
            terminal.wait_for("set-clipboard off")
        finally:
            clipboard("on")


def test_a_double_click_copies_the_whole_answer(root: Path, tmp_path: Path, server: FakeGeminiServer) -> None:
    """The answer is far taller than the screen: the copy holds all of it, not what is visible."""
    server.script(reply(text(ANSWER)))
    with start_app(root, tmp_path, server, 120, 40) as terminal:
        clipboard("on")
        send(terminal, "report please")
        screen = terminal.wait_for("The end, no newline", timeout=30)
        row = next(i for i, line in enumerate(screen.splitlines()) if "item with" in line)
        # an SGR mouse click twice at that row (tmux passes the app's mouse mode through)
        for _ in range(2):
            terminal.type(f"\x1b[<0;10;{row + 1}M\x1b[<0;10;{row + 1}m")
        terminal.wait_for("Copied the whole answer's Markdown")
        wait_for_buffer(ANSWER)
