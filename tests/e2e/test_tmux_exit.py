"""Leaving the app in a real terminal (tmux) against the fake Gemini server: SIGTERM and SIGHUP end it as a quit
does (alternate screen and mouse tracking off, nothing printed over the terminal, the session saved), and the
window title it set while a confirmation waited does not outlive it."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.terminal import Terminal, send, start_app
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text


@pytest.fixture
def server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as fake:
        yield fake


def pane(terminal: Terminal, what: str) -> str:
    return subprocess.run(["tmux", "display", "-p", "-t", terminal.name, what], capture_output=True,
                          text=True).stdout.removesuffix("\n")


def app_pid(terminal: Terminal) -> int:
    """The app's process: the child of the pane's shell."""
    shell = int(pane(terminal, "#{pane_pid}"))
    children = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except (OSError, ValueError):
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == shell:  # the field after the state is the parent's pid
            children.append(int(entry.name))
    assert len(children) == 1, children
    return children[0]


def modes(terminal: Terminal) -> str:
    return pane(terminal, "#{alternate_on} #{mouse_any_flag}")


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_terminating_signal_ends_the_app_as_a_quit_does(root: Path, tmp_path: Path, server: FakeGeminiServer,
                                                           number: signal.Signals) -> None:
    server.script(reply(text("ANSWER-BEFORE-THE-SIGNAL")))
    with start_app(root, tmp_path, server, keep_shell=True) as terminal:
        send(terminal, "hello")
        terminal.wait_for("ANSWER-BEFORE-THE-SIGNAL")
        assert modes(terminal) == "1 1"  # the app's own screen, with the mouse reported
        os.kill(app_pid(terminal), number)
        screen = terminal.wait_for("EXITED")
        assert modes(terminal) == "0 0"
        # the shell's screen as it was, with only the exit code under it: no "Terminated", no traceback, no frame
        assert [line for line in screen.splitlines() if line.strip()] == [f"EXITED-{128 + number}"]
    saved = list((tmp_path / "home" / ".gemini" / "tmp").glob("*/chats/session-*.jsonl"))
    assert len(saved) == 1 and "ANSWER-BEFORE-THE-SIGNAL" in saved[0].read_text()


@pytest.mark.parametrize("how", ["ctrl+q", "SIGTERM"])
def test_the_window_title_is_given_back_when_quitting_while_a_confirmation_waits(
        root: Path, tmp_path: Path, server: FakeGeminiServer, how: str) -> None:
    server.script(reply(call("run_shell_command", command="echo never")))
    with start_app(root, tmp_path, server, keep_shell=True) as terminal:
        before = pane(terminal, "#{pane_title}")
        send(terminal, "run it")
        terminal.wait_for("echo never")
        deadline = time.monotonic() + 5
        while "action required" not in pane(terminal, "#{pane_title}") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "action required" in pane(terminal, "#{pane_title}")
        if how == "ctrl+q":
            terminal.keys("C-q")
        else:
            os.kill(app_pid(terminal), signal.SIGTERM)
        terminal.wait_for("EXITED")
        after = pane(terminal, "#{pane_title}")
        assert "action required" not in after and after == before  # tmux has no title stack: set back as found
