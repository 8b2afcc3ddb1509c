"""Where a Gemini worktree is: `<project>/.gemini/worktrees/<name>`, found from a folder by its path alone (no git),
so the status line can name it as the first frame is drawn without loading what runs git."""

from __future__ import annotations

from pathlib import Path

WORKTREES_FOLDER = (".gemini", "worktrees")


def worktree_folder_of(folder: Path) -> Path | None:
    """The Gemini worktree `folder` is in (`<project>/.gemini/worktrees/<name>`, holding a `.git` file), or None.
    Reads only paths, no git: the status line asks it while the first frame is drawn."""
    folder = Path(folder).absolute()
    for candidate in (folder, *folder.parents):
        if (candidate.parent.name, candidate.parent.parent.name) == (WORKTREES_FOLDER[1], WORKTREES_FOLDER[0]) \
                and (candidate / ".git").is_file():
            return candidate
    return None


def worktree_name_of(folder: Path) -> str | None:
    """The name of the Gemini worktree `folder` is in, or None (see `worktree_folder_of`)."""
    found = worktree_folder_of(folder)
    return found.name if found is not None else None
