"""`/worktrees`: the project's Gemini worktrees (`.gemini/worktrees/<name>`, made by `gemini-tui -w NAME`), each
with its branch, folder and whether it holds changes, and which one this session works in."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from gemini_tui.app.command_registry import CommandContext, CommandResult, ShowMarkdown, ShowNotice, command
from gemini_tui.core.ground.terminal_text import clean_terminal_text

if TYPE_CHECKING:
    from pathlib import Path

    from gemini_tui.core.session.face import SessionFace
    from gemini_tui.core.workspace.worktrees import WorktreeState


@command("worktrees", "The project's git worktrees: name, branch, folder, clean or dirty, and which is this one")
async def _worktrees(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    from gemini_tui.core.workspace.worktrees import WorktreeError, list_worktrees

    try:  # git runs once per worktree: off the event loop
        states = await asyncio.to_thread(list_worktrees, session.root)
    except WorktreeError as exc:
        return ShowNotice(str(exc), "error")
    return ShowMarkdown(table(states, session.root))


def _cell(text: str) -> str:
    return clean_terminal_text(text).replace("\\", "\\\\").replace("|", "\\|").replace("`", "'")


def table(states: list[WorktreeState], here: Path) -> str:
    """The worktrees as a Markdown table; the one holding `here` is marked."""
    if not states:
        return ("**Worktrees**\n\nThis project has none yet: `gemini-tui -w NAME` starts a session in a new one "
                "(`.gemini/worktrees/NAME`, branch `worktree-NAME`).")
    here = here.resolve()
    where = next((s.worktree.name for s in states if here == s.worktree.path or s.worktree.path in here.parents),
                 None)
    rows = ["| | Name | Branch | Folder | State |", "| --- | --- | --- | --- | --- |"]
    for state in states:
        worktree = state.worktree
        rows.append(f"| {'▶' if worktree.name == where else ''} | {_cell(worktree.name)} "
                    f"| `{_cell(worktree.branch or 'detached')}` | `{_cell(str(worktree.path))}` "
                    f"| {_cell(state.describe())} |")
    footer = (f"This session works in **{_cell(where)}** (▶)." if where is not None
              else "This session works in the main checkout.")
    return "**Worktrees**\n\n" + "\n".join(rows) + "\n\n" + footer
