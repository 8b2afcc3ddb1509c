"""End to end in a real terminal: a streamed answer, Esc cancelling a slow one, a slash command, quitting."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.terminal import send, start_app
from tests.fakes.gemini_server import FakeGeminiServer, reply, text


@pytest.fixture
def server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as fake:
        yield fake


def test_stream_cancel_command_and_quit(root: Path, tmp_path: Path, server: FakeGeminiServer) -> None:
    server.script(
        reply(text("## Plan\n\nFirst "), text("**step** done.")),
        reply(text("Starting slowly "), text("and never finishing"), delay_s=3.0),
    )
    with start_app(root, tmp_path, server) as terminal:
        send(terminal, "make a plan")
        terminal.wait_for("First step done.")
        send(terminal, "take your time")
        terminal.wait_for("Starting slowly")
        terminal.keys("Escape")
        screen = terminal.wait_for("Turn ended: cancelled")
        assert "never finishing" not in screen
        send(terminal, "/stats")
        terminal.wait_for("Session stats")
        terminal.keys("C-c", "C-c")  # one send-keys call: both land within the one-second window
        terminal.wait_for(lambda _screen: subprocess.run(["tmux", "has-session", "-t", terminal.name],
                                                         capture_output=True).returncode != 0, timeout=10)
