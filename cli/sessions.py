"""`--list-sessions`, `--delete-session` and `--resume`: the saved sessions of the project in the current folder,
and the way back to each session of a window as it ends."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from gemini_tui.core.ground.terminal_text import clean_terminal_text
from gemini_tui.core.persistence.listing import describe
from gemini_tui.core.persistence.store import SessionStore, project_dir
from gemini_tui.core.setup.config import gemini_home

PROMPT_SHOWN = 40  # characters of a session's first prompt that name it as the window ends


def store_for(root: Path | None = None) -> SessionStore:
    root = Path(root or os.getcwd()).resolve()
    return SessionStore(project_dir(gemini_home() / ".gemini", root))


def manage_sessions(*, list_them: bool, delete: str | None) -> int:
    store = store_for()
    here = clean_terminal_text(str(Path.cwd().resolve()))  # a folder's name may hold escape sequences too
    if delete is not None:
        try:
            gone = store.delete(delete)
        except (LookupError, OSError) as exc:
            print(f"gemini-tui: {clean_terminal_text(str(exc))}", file=sys.stderr)
            return 1
        print(f"Deleted session {gone.index}: {describe(gone).split('. ', 1)[1]}")
    if list_them:
        sessions = store.summaries()
        if not sessions:
            print(f"No saved sessions for {here}.")
            return 0
        print(f"Saved sessions for {here} ({len(sessions)}), oldest first:")
        for summary in sessions:
            print(describe(summary))
        print("Resume one with: gemini-tui --resume N (or --resume latest, or --resume ID).")
    return 0


def resume_or_explain(session: Any, which: str, *, to_stderr: bool = True) -> bool:
    """Resumes `which` into `session`; on failure says why (stderr headless, a notice in the app)."""
    from gemini_tui.core.persistence.records import NotASession

    try:
        session.saved.resume(which)
    except (LookupError, NotASession, OSError) as exc:
        message = f"Cannot resume session {which!r}: {exc}"
        if to_stderr:
            print(f"gemini-tui: {message}", file=sys.stderr)
        else:
            session.report(message + " A new session was started instead.", "error")
        return False
    return True


def how_to_resume(sessions: Sequence[Any], here: Path, program: str = "gemini-tui") -> list[str]:
    """What a window of several sessions says as it ends: for each session with a saved conversation, its first
    prompt and the command that resumes it (from its own folder, a worktree's, when that is not `here`)."""
    lines: list[str] = []
    for session in sessions:
        if not session.history:
            continue  # nothing was said in it: nothing to resume
        marks = session.prompt_marks
        first = " ".join(marks[0].text.split()) if marks else ""
        first = first if len(first) <= PROMPT_SHOWN else first[:PROMPT_SHOWN - 1] + "…"
        root = Path(session.root).resolve()
        where = "" if root == here.resolve() else f"cd {shlex.quote(str(root))} && "
        lines.append(f"  {first or '(no prompt)'}: {where}{program} --resume {shlex.quote(session.session_id)}")
    if len(lines) < 2:
        return []  # one session: nothing to choose from (its autosave is found by --resume as ever)
    return ["This window's sessions are saved; to go on with one:", *lines]


def say_how_to_resume(sessions: Sequence[Any], stream: TextIO | None = None) -> None:
    for line in how_to_resume(sessions, Path.cwd()):
        print(clean_terminal_text(line), file=stream or sys.stdout, flush=True)
