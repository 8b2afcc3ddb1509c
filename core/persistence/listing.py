"""A saved session as one line of a list: what `--list-sessions`, `/resume` and `/chat list` print."""

from __future__ import annotations

import time

from gemini_tui.core.ground.terminal_text import clean_terminal_text
from gemini_tui.core.ground.text_boundary import shown_text
from gemini_tui.core.persistence.store import SessionSummary


def describe(summary: SessionSummary, *, width: int = 60) -> str:
    """`3. fix the parser tests  (2026-11-23 12:04, 5 turns, 14.2 KB) [id]`, safe to print: a saved prompt (or a
    file's name in a problem) may hold escape sequences, and a listing is a display like any other."""
    if not summary.readable:
        return clean_terminal_text(f"{summary.index:>3}. (cannot be read: {summary.problem})").replace("\n", " ")
    # cleaned before it is cut: a sequence's bytes count for nothing, and a cut never leaves half a sequence
    prompt = shown_text(" ".join(clean_terminal_text(summary.first_prompt).split())) or "(no prompt yet)"
    if len(prompt) > width:
        prompt = prompt[:width - 1] + "…"
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(summary.modified))
    return (f"{summary.index:>3}. {prompt}  ({when}, {summary.turns} turn{'s' * (summary.turns != 1)}, "
            f"{human_size(summary.size)}) [{clean_terminal_text(summary.id)}]")


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1024 / 1024:.1f} MB"
