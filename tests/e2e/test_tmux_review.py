"""End to end in a real terminal: `gemini-tui` in tmux against the fake Gemini server; edits approved, rejected,
and a change on disk shown before anything is written: approval stays off until `u` re-reads the file."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gemini_tui.app.typing_guard import GRACE_PERIOD
from tests.e2e.terminal import send, start_app, wait_until
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

GRACE = GRACE_PERIOD + 0.3  # past the quiet spell after which the diff modal takes keys


@pytest.fixture
def server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as fake:
        yield fake




def test_approve_one_edit_and_reject_another(root: Path, tmp_path: Path, server: FakeGeminiServer) -> None:
    target = root / "greeting.txt"
    target.write_text("hello world\nsecond line\n")
    server.script(
        reply(text("I'll edit it."), call("replace", file_path=str(target), old_string="hello world",
                                          new_string="hello gemini")),
        reply(text("Edited.")),
        reply(call("replace", file_path=str(target), old_string="second line", new_string="2nd line")),
        reply(text("Understood, left it.")),
    )
    with start_app(root, tmp_path, server) as terminal:
        send(terminal, "change the greeting")
        terminal.wait_for("Confirm Edit")
        # Esc is labelled by what it does (it rejects the edit), and the summary line is whole
        screen = terminal.wait_for(lambda s: "esc Reject  r reason" in s  # (shortened at 120 columns)
                                   and "greeting.txt  +1  -1  change 1/1  hunk 1/1  unified, wrapped" in s)
        assert "back" not in screen.strip().splitlines()[-1]
        time.sleep(GRACE)
        terminal.keys("y")
        terminal.wait_for("Edited.")
        assert target.read_text() == "hello gemini\nsecond line\n"

        send(terminal, "now the second line")
        terminal.wait_for("Confirm Edit")
        time.sleep(GRACE)
        terminal.keys("r")
        time.sleep(0.2)
        terminal.type("keep it as is")
        terminal.keys("Enter")
        terminal.wait_for("Understood, left it.")
    assert target.read_text() == "hello gemini\nsecond line\n"
    rejection = server.requests[3].function_responses()
    assert "keep it as is" in str(rejection)


def test_change_on_disk_is_shown_before_writing(root: Path, tmp_path: Path, server: FakeGeminiServer) -> None:
    target = root / "config.ini"
    target.write_text("[main]\nname = old\n")
    server.script(
        reply(call("replace", file_path=str(target), old_string="name = old", new_string="name = new")),
        reply(text("Saved.")),
    )
    with start_app(root, tmp_path, server) as terminal:
        send(terminal, "rename it")
        terminal.wait_for("Confirm Edit")
        target.write_text("[main]\nname = old\nport = 8080\n")  # someone else edits the file meanwhile
        terminal.wait_for("changed on disk", timeout=10)
        screen = terminal.wait_for("port = 8080")
        assert "Confirm Edit" in screen
        assert target.read_text() == "[main]\nname = old\nport = 8080\n"  # nothing written yet
        # (a start-up toast may cover the notice a moment; the key bar is redrawn after the notice)
        screen = terminal.wait_for(lambda s: "approval is off" in s and "u Re-review" in s)
        assert "y Allow" not in screen
        time.sleep(GRACE)
        terminal.keys("y")  # approval is off until the file is re-read: y only says so again
        time.sleep(1.0)
        screen = terminal.screen()
        assert "Confirm Edit" in screen and "Saved." not in screen and "approval is off" in screen
        assert target.read_text() == "[main]\nname = old\nport = 8080\n"
        terminal.keys("u")
        terminal.wait_for("approval is back on")
        time.sleep(GRACE)
        terminal.keys("y")
        terminal.wait_for("Saved.")
        wait_until(lambda: target.read_text() == "[main]\nname = new\nport = 8080\n")
