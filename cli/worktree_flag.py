"""`-w/--worktree [NAME]`: the run moves into the project's worktree NAME before anything reads the folder (so the
session's root, settings, saved sessions and commands are the worktree's), and says as it ends how to come back."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from gemini_tui.core.ground.terminal_text import clean_terminal_text

if TYPE_CHECKING:
    from gemini_tui.core.session.face import SessionFace
    from gemini_tui.core.workspace.worktrees import Worktree


def enter(name: str) -> Worktree:
    """Opens (creates or finds) worktree `name` ("" for a new made-up name) of the project the current folder is
    in, and makes it the current folder. Raises WorktreeError with the user's message."""
    from gemini_tui.core.workspace.worktrees import open_worktree

    worktree = open_worktree(Path.cwd(), name or None)
    os.chdir(worktree.path)
    os.environ["PWD"] = str(worktree.path)  # what commands started from here read as their folder
    return worktree


def say_goodbye(session: SessionFace | None, stream: TextIO | None = None) -> None:
    """When the session worked in a Gemini worktree (by -w, or started inside one), the worktree is kept: say in
    what state, how to go on there and how to remove it. A saved conversation is resumed by its id."""
    from gemini_tui.core.workspace.worktrees import WorktreeError, list_worktrees, worktree_name_of

    root = session.root if session is not None else Path.cwd()
    name = worktree_name_of(root)
    if name is None:
        return
    try:
        state = next((s for s in list_worktrees(root) if s.worktree.name == name), None)
    except WorktreeError:
        state = None
    if state is None:
        return
    from gemini_tui.core.workspace.worktrees import leaving_words

    session_id = session.session_id if session is not None and session.history else None
    print(clean_terminal_text(leaving_words(state, session_id)), file=stream or sys.stdout, flush=True)
