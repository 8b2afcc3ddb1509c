"""A saved session as one line of a list: what `--list-sessions`, `/resume` and `/chat list` print."""

from __future__ import annotations

import time

from gemini_tui.core.ground.text_boundary import shown_text
from gemini_tui.core.persistence.store import SessionSummary


def describe(summary: SessionSummary, *, width: int = 60) -> str:
    """`3. fix the parser tests  (2026-11-23 12:04, 5 turns, 14.2 KB) [id]`"""
    if not summary.readable:
        return f"{summary.index:>3}. (cannot be read: {summary.problem})"
    prompt = shown_text(" ".join(summary.first_prompt.split())) or "(no prompt yet)"  # printable, whatever it holds
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
