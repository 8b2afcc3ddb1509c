"""`/worktrees` and the status line in a session whose root is a worktree: every worktree of the project with its
branch, folder and state, the session's own one marked, the status line naming it; outside a repository, why not."""

from __future__ import annotations

from pathlib import Path

from gemini_tui.app.worktree_commands import table
from gemini_tui.core.workspace.worktrees import list_worktrees, open_worktree
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.app.test_permissions import chat_text
from tests.core.workspace.test_worktrees import make_repo
from tests.fakes.scripted_model import ScriptedModel


async def test_the_list_and_the_status_line_in_a_worktree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "project")
    feat = open_worktree(repo, "feat")
    other = open_worktree(repo, "other")
    (other.path / "app.py").write_text("changed\n", encoding="utf-8")
    app = make_app(feat.path, tmp_path, ScriptedModel())
    async with app.run_test(size=(160, 40)) as pilot:
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: screen.ready)
        assert "worktree: feat" in screen.status.line(160).plain
        await type_and_send(pilot, "/worktrees")
        await wait_for(pilot, lambda: "This session works in" in chat_text(screen))
        shown = chat_text(screen)
        assert "worktree-feat" in shown and "worktree-other" in shown
        assert str(other.path) in shown and "dirty: 1 changed file" in shown and "clean" in shown
        assert "This session works in feat" in shown.replace("*", "")


def test_the_table_marks_the_sessions_worktree_or_the_main_checkout(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "project")
    for name in ("a", "b", "c"):
        open_worktree(repo, name)
    states = list_worktrees(repo)
    inside = table(states, states[1].worktree.path / "sub")
    marked = [line for line in inside.splitlines() if line.startswith("| ▶")]
    assert len(marked) == 1 and "| b |" in marked[0]
    assert "main checkout" in table(states, repo) and "▶ |" not in table(states, repo)
    assert "none yet" in table([], repo)


async def test_outside_a_repository_the_command_says_why(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "/worktrees")
        await wait_for(pilot, lambda: "not in a git repository" in chat_text(screen))
        assert "worktree:" not in screen.status.line(120).plain
