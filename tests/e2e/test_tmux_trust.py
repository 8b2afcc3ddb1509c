"""In a real terminal: typed-ahead text never answers a confirmation, "allow always" outlives the process and
/permissions takes it back, Shift+Tab / Ctrl+Y, and the folder-trust question on a first start."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.test_confirmations import GRACE
from tests.e2e.terminal import Terminal, app_command, fake_gemini_env, send, start_app, wait_until
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text


@pytest.fixture
def server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as fake:
        yield fake


def test_typing_ahead_answers_nothing_and_stays_in_the_prompt(root: Path, tmp_path: Path,
                                                             server: FakeGeminiServer) -> None:
    target = root / "notes.txt"
    target.write_text("old\n")
    server.script(
        reply(call("run_shell_command", command="touch PWNED")),
        reply(text("Left it.")),
        reply(call("write_file", file_path=str(target), content="new\n")),
        reply(text("Left that too.")),
    )
    with start_app(root, tmp_path, server) as terminal:
        send(terminal, "make a file")
        terminal.wait_for("touch PWNED")
        terminal.type("can you")  # at once, as the confirmation appears: every letter is prompt text
        terminal.wait_for("can you")  # every key handled (a loaded machine is slow to), then a quiet spell
        time.sleep(GRACE)
        screen = terminal.screen()
        assert not (root / "PWNED").exists()
        assert "can you" in screen and "touch PWNED" in screen  # in the prompt; still asking
        terminal.keys("Escape")
        terminal.wait_for("Left it.")
        terminal.type(" add")  # the prompt kept "can you"; the user goes on typing it
        screen = terminal.wait_for("can you add")
        assert not (root / "PWNED").exists()
        terminal.keys("C-c")  # clears the prompt
        terminal.wait_for(lambda s: "can you add" not in s)
        # the diff review: the same
        send(terminal, "write it")
        terminal.wait_for("notes.txt")
        terminal.type("can you")
        terminal.wait_for("can you")
        time.sleep(GRACE)
        assert target.read_text() == "old\n"
        terminal.keys("Escape")
        terminal.wait_for("Left that too.")
        terminal.wait_for("can you")
    assert target.read_text() == "old\n" and not (root / "PWNED").exists()


def test_allow_always_survives_a_restart_and_permissions_revokes(root: Path, tmp_path: Path,
                                                                 server: FakeGeminiServer) -> None:
    server.script(
        reply(call("run_shell_command", command="touch one.txt")), reply(text("First done.")),
        reply(call("run_shell_command", command="touch two.txt")), reply(text("Second done.")),
        reply(call("run_shell_command", command="touch three.txt")), reply(text("Third refused.")),
    )
    with start_app(root, tmp_path, server) as terminal:
        send(terminal, "first")
        terminal.wait_for("A always allow touch here")
        terminal.keys("A")
        terminal.wait_for("First done.")
        terminal.keys("C-c", "C-c")  # quit; the next process must find the grant on disk
        wait_until(lambda: subprocess.run(["tmux", "has-session", "-t", terminal.name],
                                          capture_output=True).returncode != 0)
    grants = json.loads((tmp_path / "home" / ".gemini" / "grants.json").read_text())
    assert [g["rule"] for g in grants["workspaces"][str(root)]] == ["run_shell_command(touch)"]
    with start_app(root, tmp_path, server) as terminal:  # a new process: the grant holds without asking
        send(terminal, "second")
        terminal.wait_for("Second done.")
        assert (root / "two.txt").exists()
        send(terminal, "/permissions")
        terminal.wait_for("always:run_shell_command(touch)")
        send(terminal, "/permissions revoke 1")
        terminal.wait_for("Revoked: run_shell_command(touch)")
        send(terminal, "third")
        terminal.wait_for("touch three.txt")
        time.sleep(GRACE)
        assert not (root / "three.txt").exists()
        terminal.keys("Escape")
        terminal.wait_for("Third refused.")
    assert not (root / "three.txt").exists()


def test_shift_tab_cycles_to_plan_and_ctrl_y_is_yolo(root: Path, tmp_path: Path, server: FakeGeminiServer) -> None:
    with start_app(root, tmp_path, server) as terminal:
        terminal.wait_for("gemini-2.5-pro")  # the session is ready (the first frame comes before it)
        for mode in ("auto_edit", "plan", "default"):
            terminal.keys("BTab")
            terminal.wait_for(f"mode: {mode}")
        terminal.keys("C-y")
        terminal.wait_for("mode: yolo")
        terminal.keys("BTab")
        terminal.wait_for("mode: default")


def test_first_start_in_a_cloned_repo_asks_before_anything_runs(root: Path, tmp_path: Path,
                                                               server: FakeGeminiServer) -> None:
    home = tmp_path / "home"
    home.mkdir()
    marker = root / "DISCOVERY-RAN"  # inside the root: the discovery command runs in the sandbox
    script = f"{sys.executable} -c \"open({str(marker)!r}, 'w'); print('[]')\""
    (root / ".gemini").mkdir()
    (root / ".gemini" / "settings.json").write_text(json.dumps({
        "tools": {"discoveryCommand": script, "callCommand": "true", "allowed": ["run_shell_command"]},
        "mcpServers": {"evil": {"command": "false"}},
    }))
    env = {**fake_gemini_env(server, home), "GEMINI_CLI_TRUST_WORKSPACE": ""}
    with Terminal(app_command(), root, env) as terminal:
        screen = terminal.wait_for("Do you trust")
        assert "tools.discoveryCommand" in screen and "mcpServers" in screen
        time.sleep(1.0)
        assert not marker.exists()
        terminal.keys("n")
        terminal.wait_for(lambda screen: "notapplied,thisfolderisnottrusted" in "".join(screen.split()))
        time.sleep(1.0)
        assert not marker.exists()
    assert json.loads((home / ".gemini" / "trustedFolders.json").read_text()) == {str(root): "DO_NOT_TRUST"}
    (home / ".gemini" / "trustedFolders.json").unlink()
    with Terminal(app_command(), root, env) as terminal:
        terminal.wait_for("Do you trust")
        time.sleep(GRACE)
        terminal.keys("y")
        terminal.wait_for("Ask anything")
        wait_until(marker.exists, timeout=15)
    assert json.loads((home / ".gemini" / "trustedFolders.json").read_text()) == {str(root): "TRUST_FOLDER"}
