"""The words at exit for every worktree the window's sessions worked in: one block a worktree (two sessions in one
say it once), the id of the one with a saved conversation, none for a session in the main checkout."""

from __future__ import annotations

import io
from pathlib import Path

from gemini_tui.cli.worktree_flag import say_goodbye
from gemini_tui.core.workspace.worktrees import open_worktree
from tests.core.workspace.test_worktrees import make_repo
from tests.fakes.scripted_model import ScriptedModel, scripted_session, text


async def test_each_worktree_of_the_window_is_named_once_with_its_own_session(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "project")
    home = tmp_path / "home"
    home.mkdir()
    feat, other = open_worktree(repo, "feat"), open_worktree(repo, "other")
    (other.path / "app.py").write_text("changed\n", encoding="utf-8")
    talked = scripted_session(feat.path, ScriptedModel().add(text("hi")), home)
    await talked.send("hello")
    (feat.path / "pkg").mkdir()
    # one in the main checkout, then feat's with a conversation, a quiet one in a subfolder of feat, and other's
    sessions = [scripted_session(root, ScriptedModel(), home) for root in (repo,)] + [talked] + [
        scripted_session(root, ScriptedModel(), home) for root in (feat.path / "pkg", other.path)]
    said = io.StringIO()
    try:
        say_goodbye(sessions, said)
    finally:
        for session in sessions:
            await session.close()
    lines = said.getvalue().splitlines()
    assert [line.split(" kept at ")[0] for line in lines if " kept at " in line] == ["Worktree feat", "Worktree other"]
    assert f"To go on working in it: cd {feat.path} && gemini-tui --resume {talked.session_id}" in lines
    assert f"To go on working in it: cd {other.path} && gemini-tui" in lines  # nothing saved there: no --resume
    assert "dirty: 1 changed file" in said.getvalue() and str(repo / "app.py") not in said.getvalue()


def test_nothing_is_said_outside_a_worktree(tmp_path: Path, monkeypatch) -> None:
    repo = make_repo(tmp_path / "project")
    monkeypatch.chdir(repo)
    said = io.StringIO()
    say_goodbye([], said)
    assert said.getvalue() == ""
    monkeypatch.chdir(open_worktree(repo, "feat").path)
    say_goodbye([], said)  # the app could not build its session: the current folder's worktree is named
    assert said.getvalue().startswith("Worktree feat kept at ")
