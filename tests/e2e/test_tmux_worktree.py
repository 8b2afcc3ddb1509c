"""`gemini-tui -w feat` in a real terminal (tmux) against the fake Gemini server: the status line names the
worktree, the model's edit lands in `.gemini/worktrees/feat` and not in the main checkout, and quitting keeps the
dirty worktree and prints how to come back to it."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.core.workspace.test_worktrees import git, make_repo
from tests.e2e.terminal import Terminal, app_command, fake_gemini_env, send
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text


@pytest.fixture
def server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as fake:
        yield fake


def test_an_edit_in_a_worktree_is_kept_at_quit_with_the_way_back(tmp_path: Path, server: FakeGeminiServer) -> None:
    repo = make_repo(tmp_path / "project")
    home = tmp_path / "home"
    home.mkdir()
    server.script(reply(call("write_file", file_path="app.py", content="print('feat')\n")),
                  reply(text("EDITED-IN-WORKTREE")))
    command = ["sh", "-c", f"{shlex.join(app_command())} -w feat --approval-mode auto_edit; echo EXITED-$?; sleep 30"]
    with Terminal(command, repo, fake_gemini_env(server, home), width=220, height=40) as terminal:
        screen = terminal.wait_for("Ask anything")
        assert "worktree: feat" in screen
        send(terminal, "change app.py")
        terminal.wait_for("EDITED-IN-WORKTREE")
        terminal.keys("C-q")
        screen = terminal.wait_for("EXITED-")
    worktree = (repo / ".gemini" / "worktrees" / "feat").resolve()
    assert (worktree / "app.py").read_text(encoding="utf-8") == "print('feat')\n"
    assert (repo / "app.py").read_text(encoding="utf-8") == "print('main')\n"  # the main checkout untouched
    assert git(repo, "status", "--porcelain") == ""  # untracked files too: the worktree is excluded
    listed = git(repo, "worktree", "list", "--porcelain")
    assert f"worktree {worktree}\n" in listed and "branch refs/heads/worktree-feat" in listed
    assert "EXITED-0" in screen
    assert f"Worktree feat kept at {worktree} (branch worktree-feat, dirty: 1 changed file)." in screen
    [session_file] = (home / ".gemini" / "tmp").glob("*/chats/session-*.jsonl")
    resume = f"To go on working in it: cd {worktree} && gemini-tui --resume "
    assert resume in screen
    session_id = screen.split(resume, 1)[1].split()[0]
    saved = session_file.read_text(encoding="utf-8")
    assert session_id in saved and "EDITED-IN-WORKTREE" in saved  # the id named is the saved conversation's
    assert f"git worktree remove {worktree} --force" in screen
