"""Sessions in one window of a real terminal, against the fake Gemini server: the second session asks to run a
command (its own, or a subagent's it handed a task to) while the first is in front; keys typed there stay there;
the "waiting on you" list (Ctrl+G) names who asks and goes to the second session, whose confirmation is answered
there (a subagent then finishes, and the session's turn ends with its answer). Two sessions opened with
`/session new -w NAME` each edit their own git worktree, and quitting keeps both and says how to come back to each.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.test_confirmations import GRACE
from tests.core.agents.world import Router, agent_file, response_texts
from tests.core.workspace.test_worktrees import git, make_repo
from tests.e2e.terminal import Terminal, app_command, fake_gemini_env, send, start_app
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text


@pytest.fixture
def server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as fake:
        yield fake


COMMAND = "echo second > two.txt"
# who asks to run the command in the second session: its own model, or a subagent it hands the task to (whose
# question the list and the confirmation name by the agent): the row the list shows, and the question's title
ASKERS = {"session": ("2 · session · run: echo second > two.txt", "⚠ Confirm Shell Command"),
          "agent": ("2 · agent writer · run: echo second > two.txt", "⚠ Subagent writer: Confirm Shell Command")}


def scripted(asker: str, home: Path) -> Router:
    """The second session's model asks for the command itself, or has the writer agent ask for it and finish."""
    router = Router()
    if asker == "session":
        router.script("parent", reply(call("run_shell_command", command=COMMAND), delay_s=2.0),
                      reply(text("Made two.txt.")))
        return router
    agent_file(home / ".gemini" / "agents", "writer", "You are WRITER-BODY.", tools=["run_shell_command"])
    router.script("parent", reply(call("invoke_agent", agent_name="writer", prompt="make two"), delay_s=2.0),
                  reply(text("Made two.txt.")))
    router.script("WRITER-BODY", reply(call("run_shell_command", command=COMMAND)),
                  reply(call("complete_task", result="WRITER-FINISHED two.txt")))
    return router


@pytest.mark.parametrize("asker", sorted(ASKERS))
def test_a_second_sessions_confirmation_answered_from_the_waiting_list(root: Path, tmp_path: Path,
                                                                      server: FakeGeminiServer,
                                                                      asker: str) -> None:
    router = server.responder = scripted(asker, tmp_path / "home")
    with start_app(root, tmp_path, server) as terminal:
        terminal.keys("C-n")
        terminal.wait_for(lambda screen: "1 new   2 new" in screen and "starting" not in screen)
        send(terminal, "make two")
        terminal.wait_for(" 2 make two")
        terminal.keys("M-Left")  # the first session in front before the second one asks
        terminal.wait_for(lambda screen: " 2 make two …" in screen or " 2 make two ✋" in screen)
        screen = terminal.wait_for("Session 2 waits on you", timeout=30)
        assert COMMAND not in screen  # its confirmation is on its own screen
        terminal.type("yes")  # meant for the first session's prompt
        terminal.wait_for("yes")
        assert not (root / "two.txt").exists()
        terminal.keys("C-u")
        terminal.keys("C-g")
        terminal.wait_for("Waiting on you")
        row, title = ASKERS[asker]
        terminal.wait_for(row)
        terminal.keys("Enter")
        terminal.wait_for(lambda screen: f"$ {COMMAND}" in screen and title in screen)
        time.sleep(GRACE)  # a confirmation takes keys after a quiet spell (typing_guard)
        terminal.type("y")
        terminal.wait_for("Made two.txt.", timeout=30)
        assert (root / "two.txt").read_text() == "second\n"
        if asker == "agent":
            terminal.wait_for("✓ @writer  make two  done")
    if asker == "agent":  # the writer finished, and the session's model was handed what it said
        assert len(router.requests_of("WRITER-BODY")) == 2
        assert "WRITER-FINISHED two.txt" in " ".join(response_texts(router.requests_of("parent")[-1]))


def test_two_sessions_each_edit_their_own_worktree(tmp_path: Path, server: FakeGeminiServer) -> None:
    repo = make_repo(tmp_path / "project")
    home = tmp_path / "home"
    home.mkdir()
    server.script(reply(call("write_file", file_path="app.py", content="print('one')\n")), reply(text("EDITED-ONE")),
                  reply(call("write_file", file_path="app.py", content="print('two')\n")), reply(text("EDITED-TWO")))
    command = ["sh", "-c", f"{shlex.join(app_command())} --approval-mode auto_edit; echo EXITED-$?; sleep 30"]
    with Terminal(command, repo, fake_gemini_env(server, home), width=220, height=40) as terminal:
        terminal.wait_for("Ask anything")
        for name, answer in (("one", "EDITED-ONE"), ("two", "EDITED-TWO")):
            send(terminal, f"/session new -w {name}")
            terminal.wait_for(lambda screen, name=name: f"worktree: {name}" in screen and "starting" not in screen)
            send(terminal, "change app.py")
            terminal.wait_for(answer)
        terminal.keys("C-q")
        screen = terminal.wait_for("EXITED-")
    assert (repo / "app.py").read_text(encoding="utf-8") == "print('main')\n"  # the main checkout untouched
    listed = git(repo, "worktree", "list", "--porcelain")
    for name in ("one", "two"):
        worktree = (repo / ".gemini" / "worktrees" / name).resolve()
        assert (worktree / "app.py").read_text(encoding="utf-8") == f"print('{name}')\n"
        assert f"worktree {worktree}\n" in listed and f"branch refs/heads/worktree-{name}" in listed
        assert f"Worktree {name} kept at {worktree} (branch worktree-{name}, dirty: 1 changed file)." in screen
        assert f"To go on working in it: cd {worktree} && gemini-tui --resume " in screen
        assert f"  change app.py: cd {worktree} && gemini-tui --resume " in screen  # each session's way back
    assert "This window's sessions are saved; to go on with one:" in screen
    assert "EXITED-0" in screen
