"""How a subagent's run reads under its invoke_agent call: its own calls counted by state, and the result it
handed back (the live queue and the chat card both say it this way)."""

from __future__ import annotations

from collections.abc import Sequence

from gemini_tui.app.call_log import CallRecord
from gemini_tui.app.widgets.call_format import STATE_WORDS, short

GROUP_ROWS = 4  # a group's own calls shown before the rest are folded (what needs the user first)


def progress(children: Sequence[CallRecord]) -> str:
    """`3 calls: 2 done, 1 running`, or that it has made none yet."""
    if not children:
        return "no calls yet"
    counts: dict[str, int] = {}
    for child in children:
        word = STATE_WORDS[child.call.state]
        counts[word] = counts.get(word, 0) + 1
    calls = f"{len(children)} call{'s' if len(children) != 1 else ''}"
    return f"{calls}: " + ", ".join(f"{n} {word}" for word, n in counts.items())


def outcome(record: CallRecord, limit: int = 110) -> str:
    """How the run ended and the first line of its result (`GOAL: …`), or "" while it runs or when it failed
    before running (the card's error line says why)."""
    from gemini_tui.core.ground.display import AgentReport  # the display types are not the first frame's

    display = record.result.return_display if record.result is not None else None
    if not isinstance(display, AgentReport):
        return ""
    first = next((line.strip() for line in display.result.splitlines() if line.strip()), "")
    return short(f"{display.reason}: {first}" if first else display.reason, limit)
