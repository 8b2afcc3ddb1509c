"""The model's todo list (write_todos) comes back with the conversation, in a real terminal (tmux): a session saved
by a headless run shows its list when resumed (`--resume`, the `/resume` picker, `/chat resume`), and a rewind
shows the list its history says at that point (the earlier list, or none)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from gemini_tui.app.typing_guard import GRACE_PERIOD
from tests.e2e.terminal import Terminal, app_command, fake_gemini_env, send
from tests.fakes import warm_start
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

GRACE = GRACE_PERIOD + 0.3
FIRST = [{"description": "Read the code", "status": "in_progress"}, {"description": "Fix it", "status": "pending"}]
SECOND = [{"description": "Read the code", "status": "completed"}, {"description": "Fix it", "status": "completed"},
          {"description": "Say so", "status": "in_progress"}]


def todo_lines(screen: str) -> list[str]:
    return [line for line in screen.splitlines() if "Todo " in line or "Read the code" in line]


@pytest.mark.parametrize("how", ["--resume", "/resume", "/chat resume"])
def test_a_resumed_session_shows_its_todo_list(root: Path, tmp_path: Path, how: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with FakeGeminiServer() as server:
        env = fake_gemini_env(server, home)
        server.script(reply(call("write_todos", todos=FIRST)), reply(text("Listed.")))
        saved = subprocess.run([*warm_start.command(os.environ), "-p", "make a list", "--approval-mode", "yolo"],
                               cwd=root, env={**os.environ, **env}, capture_output=True, text=True, timeout=60)
        assert saved.returncode == 0, saved.stderr
        assert server.requests[1].function_responses()[0]["name"] == "write_todos"
        command = [*app_command(), "--resume"] if how == "--resume" else app_command()
        with Terminal(command, root, env) as terminal:
            screen = terminal.wait_for("Ask anything")
            if how == "/resume":
                assert "Todo " not in screen
                send(terminal, "/resume")
                terminal.wait_for("newest first")
                time.sleep(GRACE)
                terminal.keys("Enter")
            elif how == "/chat resume":
                send(terminal, "/resume")  # any saved session becomes a tagged chat: resume, save it, start over
                terminal.wait_for("newest first")
                time.sleep(GRACE)
                terminal.keys("Enter")
                terminal.wait_for("Todo 0/2")
                send(terminal, "/chat save listed")
                terminal.wait_for("listed")
                send(terminal, "/clear")
                terminal.wait_for(lambda s: "Todo 0/2" not in s)
                send(terminal, "/chat resume listed")
            screen = terminal.wait_for("Todo 0/2")
            assert "◐ Read the code" in screen and "○ Fix it" in screen, screen


def test_a_rewind_shows_the_list_of_that_point(root: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with FakeGeminiServer() as server:
        server.script(reply(call("write_todos", todos=FIRST)), reply(text("Listed.")),
                      reply(call("write_todos", todos=SECOND)), reply(text("Advanced.")))
        with Terminal(app_command(), root, fake_gemini_env(server, home)) as terminal:
            terminal.wait_for("Ask anything")
            send(terminal, "make a list")
            terminal.wait_for("Todo 0/2")
            terminal.wait_for("Listed.")
            send(terminal, "go on")
            terminal.wait_for(lambda s: "Todo 2/3" in s and "Advanced." in s)
            for expected in ("Todo 0/2", None):  # back before "go on": the first list; before "make a list": none
                send(terminal, "/rewind")
                terminal.wait_for("Rewind to before which prompt?")
                time.sleep(GRACE)
                terminal.keys("Enter")  # the newest prompt
                terminal.wait_for("Rewind what?")
                time.sleep(GRACE)
                terminal.keys("Down", "Enter")  # conversation only
                screen = terminal.wait_for(lambda s, expected=expected: "Rewind what?" not in s
                                           and "back to before" in s
                                           and (expected in s if expected else not todo_lines(s)))
                assert "Todo 2/3" not in screen, screen
                if expected is not None:
                    assert "◐ Read the code" in screen and "Say so" not in screen, screen
                time.sleep(GRACE)
                terminal.keys("C-c")  # the rewound prompt came back into the prompt: cleared
                terminal.wait_for(lambda s: "go on" not in s.split("Ask anything")[0].splitlines()[-1])
