"""`-w/--worktree [NAME]`: the run moves into the project's worktree NAME before anything reads the folder (so the
session's root, settings, saved sessions and commands are the worktree's), and says as it ends how to come back."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
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


def say_goodbye(sessions: Sequence[SessionFace], stream: TextIO | None = None) -> None:
    """For each Gemini worktree the sessions worked in (by -w, `/session new` in one, or started inside one; the
    current folder's when no session was built), say that it is kept, in what state, how to go on there (the id
    of its last session with a saved conversation) and how to remove it. Nothing when none was in a worktree."""
    from gemini_tui.core.workspace.worktree_place import worktree_folder_of
    from gemini_tui.core.workspace.worktrees import WorktreeError, leaving_words, list_worktrees

    roots = [session.root for session in sessions] or [Path.cwd()]
    folders = list(dict.fromkeys(f.resolve() for f in map(worktree_folder_of, roots) if f is not None))
    for folder in folders:
        try:
            state = next((s for s in list_worktrees(folder) if s.worktree.path == folder), None)
        except WorktreeError:
            continue
        if state is None:
            continue
        ids = [s.session_id for s in sessions if s.history and (found := worktree_folder_of(s.root)) is not None
               and found.resolve() == folder]
        print(clean_terminal_text(leaving_words(state, ids[-1] if ids else None)), file=stream or sys.stdout,
              flush=True)
