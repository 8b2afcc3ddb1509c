"""`--list-sessions`, `--delete-session` and `--resume`: the saved sessions of the project in the current folder."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from gemini_tui.core.config import gemini_home
from gemini_tui.core.session_store import SessionStore, SessionSummary, project_dir


def store_for(root: Path | None = None) -> SessionStore:
    root = Path(root or os.getcwd()).resolve()
    return SessionStore(project_dir(gemini_home() / ".gemini", root))


def describe(summary: SessionSummary, *, width: int = 60) -> str:
    """`3. fix the parser tests  (2026-11-23 12:04, 5 turns, 14.2 KB) [id]`"""
    if not summary.readable:
        return f"{summary.index:>3}. (cannot be read: {summary.problem})"
    prompt = " ".join(summary.first_prompt.split()) or "(no prompt yet)"
    if len(prompt) > width:
        prompt = prompt[:width - 1] + "…"
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(summary.modified))
    return (f"{summary.index:>3}. {prompt}  ({when}, {summary.turns} turn{'s' * (summary.turns != 1)}, "
            f"{human_size(summary.size)}) [{summary.id}]")


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1024 / 1024:.1f} MB"


def manage_sessions(*, list_them: bool, delete: str | None) -> int:
    store = store_for()
    if delete is not None:
        try:
            gone = store.delete(delete)
        except (LookupError, OSError) as exc:
            print(f"gemini-tui: {exc}", file=sys.stderr)
            return 1
        print(f"Deleted session {gone.index}: {describe(gone).split('. ', 1)[1]}")
    if list_them:
        sessions = store.summaries()
        if not sessions:
            print(f"No saved sessions for {Path.cwd().resolve()}.")
            return 0
        print(f"Saved sessions for {Path.cwd().resolve()} ({len(sessions)}), oldest first:")
        for summary in sessions:
            print(describe(summary))
        print("Resume one with: gemini-tui --resume N (or --resume latest, or --resume ID).")
    return 0


def resume_or_explain(session: Any, which: str, *, to_stderr: bool = True) -> bool:
    """Resumes `which` into `session`; on failure says why (stderr headless, a notice in the app)."""
    from gemini_tui.core.session_record import NotASession

    try:
        session.resume(which)
    except (LookupError, NotASession, OSError) as exc:
        message = f"Cannot resume session {which!r}: {exc}"
        if to_stderr:
            print(f"gemini-tui: {message}", file=sys.stderr)
        else:
            session.report(message + " A new session was started instead.", "error")
        return False
    return True
