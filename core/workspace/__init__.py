"""The workspace a session works in, beyond one folder: git worktrees made and found by name
(`.gemini/worktrees/<name>` on branch `worktree-<name>`, as Gemini CLI lays them out). Runs git, knows nothing of
sessions, tools or screens."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemini_tui.core.ground.lazy_face import lazy_face

if TYPE_CHECKING:
    from gemini_tui.core.workspace.worktree_place import worktree_folder_of, worktree_name_of
    from gemini_tui.core.workspace.worktrees import (
        Worktree,
        WorktreeError,
        WorktreeState,
        leaving_words,
        list_worktrees,
        open_worktree,
    )

__all__ = ["Worktree", "WorktreeError", "WorktreeState", "leaving_words", "list_worktrees", "open_worktree",
           "worktree_folder_of", "worktree_name_of"]

__getattr__ = lazy_face(__name__, {
    "gemini_tui.core.workspace.worktrees": ("Worktree", "WorktreeError", "WorktreeState", "leaving_words",
                                            "list_worktrees", "open_worktree"),
    "gemini_tui.core.workspace.worktree_place": ("worktree_folder_of", "worktree_name_of"),
})
