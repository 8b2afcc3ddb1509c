"""Keys and waits that interrupt a turn, in a real terminal (tmux) against the fake Gemini server: Ctrl+C arms
quitting only when it had nothing else to do, a hung MCP server does not hold the first prompt, Enter during a
confirmation queues, the status line gives way without cutting a number, a huge paste is folded."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.terminal import Terminal, send, start_app
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

GRACE = 0.8  # past the confirmation's grace period, in which keys go to the prompt


@pytest.fixture
def server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as fake:
        yield fake


def start(root: Path, tmp_path: Path, server: FakeGeminiServer, width: int = 120, height: int = 40) -> Terminal:
    return start_app(root, tmp_path, server, width, height, keep_shell=True)


def test_ctrl_c_that_clears_a_draft_does_not_arm_quitting(root: Path, tmp_path: Path,
                                                          server: FakeGeminiServer) -> None:
    with start(root, tmp_path, server) as terminal:
        terminal.type("a draft to throw away")
        terminal.wait_for("a draft to throw away")
        terminal.keys("C-c")  # clears the draft: that was its job
        screen = terminal.wait_for(lambda s: "a draft to throw away" not in s)
        assert "again to exit" not in screen
        time.sleep(0.5)
        terminal.keys("C-c")  # nothing left to clear: this one arms, and says so
        screen = terminal.wait_for("Press Ctrl+C again to exit.")
        assert "EXITED" not in screen
        terminal.keys("C-c")
        screen = terminal.wait_for("EXITED")
        assert "EXITED-0" in screen and "Traceback" not in screen


def test_a_hung_mcp_server_is_said_and_esc_sends_the_prompt_without_it(root: Path, tmp_path: Path,
                                                                       server: FakeGeminiServer) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    # a server that starts and never answers the MCP handshake
    hung = {"command": sys.executable, "args": ["-c", "import time; time.sleep(120)"]}
    (home / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": {"stuck": hung}}))
    server.script(reply(text("ANSWERED-WITHOUT-STUCK")))
    with start(root, tmp_path, server) as terminal:
        send(terminal, "hello")
        screen = terminal.wait_for("Waiting for MCP server stuck", timeout=10)
        assert "Esc sends it now" in screen and "ANSWERED" not in screen
        terminal.keys("Escape")
        terminal.wait_for("ANSWERED-WITHOUT-STUCK", timeout=10)
    assert len(server.requests) == 1


def test_enter_while_a_confirmation_waits_queues_the_prompt(root: Path, tmp_path: Path,
                                                           server: FakeGeminiServer) -> None:
    server.script(reply(call("run_shell_command", command="echo FIRST-COMMAND")), reply(text("First done.")),
                  reply(text("SECOND-ANSWER")))
    with start(root, tmp_path, server) as terminal:
        send(terminal, "run it")
        terminal.wait_for("echo FIRST-COMMAND")
        terminal.type("the next prompt")
        time.sleep(GRACE)  # the confirmation listens now: Enter reaches it, not the prompt
        terminal.keys("Enter")
        terminal.wait_for("sent when the turn ends")  # queued, as Enter does while a turn runs
        time.sleep(GRACE)  # Enter was typing: the confirmation listens again after a pause
        terminal.keys("y")
        terminal.wait_for("SECOND-ANSWER", timeout=20)
    assert any("the next prompt" in str(r.contents[-1]) for r in server.requests if r.contents)


def test_at_80_columns_the_status_line_keeps_working_and_the_mode_whole(root: Path, tmp_path: Path,
                                                                       server: FakeGeminiServer) -> None:
    server.script(reply(text("Slow "), text("answer."), delay_s=2.0))
    with start(root, tmp_path, server, 80, 24) as terminal:
        send(terminal, "hello")
        screen = terminal.wait_for(lambda s: "working…" in s.splitlines()[0])
        top = screen.splitlines()[0]
        assert "mode: default" in top and "context" in top
        assert not re.search(r"\d\s*$", top.rstrip("│ "))  # never ends on a cut number


def test_a_huge_paste_is_folded_in_the_chat_and_sent_whole(root: Path, tmp_path: Path,
                                                          server: FakeGeminiServer) -> None:
    server.script(reply(text("GOT-IT")))
    paste = tmp_path / "paste.txt"
    paste.write_text("\n".join(f"pasted line {i}" for i in range(1, 501)))
    with start(root, tmp_path, server) as terminal:
        for command in (["load-buffer", "-b", terminal.name, str(paste)],
                        ["paste-buffer", "-p", "-d", "-b", terminal.name, "-t", terminal.name]):  # bracketed
            subprocess.run(["tmux", *command], check=True, capture_output=True)
        terminal.wait_for("pasted line 500", timeout=20)
        terminal.keys("Enter")
        screen = terminal.wait_for("GOT-IT", timeout=20)
        assert "[Pasted text +497 lines]" in screen and "pasted line 499" not in screen
    sent = str(server.requests[0].contents[-1])
    assert all(f"pasted line {i}" in sent for i in (1, 2, 250, 499, 500))  # the model gets all of it
