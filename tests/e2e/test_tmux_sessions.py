"""Two sessions in one window of a real terminal, against the fake Gemini server: the second session asks to run a
command while the first is in front; keys typed there stay there; the "waiting on you" list (Ctrl+G) goes to the
second session, whose confirmation is answered there."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.test_confirmations import GRACE
from tests.e2e.terminal import send, start_app
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text


@pytest.fixture
def server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as fake:
        yield fake


def test_a_second_sessions_confirmation_answered_from_the_waiting_list(root: Path, tmp_path: Path,
                                                                      server: FakeGeminiServer) -> None:
    server.script(
        reply(call("run_shell_command", command="echo second > two.txt"), delay_s=2.0),
        reply(text("Made two.txt.")),
    )
    with start_app(root, tmp_path, server) as terminal:
        terminal.keys("C-n")
        terminal.wait_for(lambda screen: "1 new   2 new" in screen and "starting" not in screen)
        send(terminal, "make two")
        terminal.wait_for(" 2 make two")
        terminal.keys("M-Left")  # the first session in front before the second one asks
        terminal.wait_for(lambda screen: " 2 make two …" in screen or " 2 make two ✋" in screen)
        screen = terminal.wait_for("Session 2 waits on you", timeout=30)
        assert "echo second > two.txt" not in screen  # its confirmation is on its own screen
        terminal.type("yes")  # meant for the first session's prompt
        terminal.wait_for("yes")
        assert not (root / "two.txt").exists()
        terminal.keys("C-u")
        terminal.keys("C-g")
        terminal.wait_for("Waiting on you")
        terminal.wait_for("2 · session · run: echo second > two.txt")
        terminal.keys("Enter")
        terminal.wait_for("$ echo second > two.txt")
        time.sleep(GRACE)  # a confirmation takes keys after a quiet spell (typing_guard)
        terminal.type("y")
        terminal.wait_for("Made two.txt.", timeout=30)
        assert (root / "two.txt").read_text() == "second\n"
