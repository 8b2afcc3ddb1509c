"""The live tool-call queue: the calls of the current turn that need attention first (awaiting approval,
running with their live output, failed with their error), the finished ones folded into a count.

Durations are the tool's own time (from running to done); the time spent waiting for the user is shown apart.
Rows are the app's call records (`app.call_log`); the queue keeps only which of them belong to the current turn."""

from __future__ import annotations

import time

from rich.text import Text
from textual.widgets import Static

from gemini_tui.app.call_log import CallRecord
from gemini_tui.app.widgets.call_format import (
    STATE_ICONS,
    STATE_WORDS,
    call_target,
    call_title,
    format_elapsed,
    short,
)
from gemini_tui.core.ground.events import CallState

# rows shown before the rest are folded into "… n more"; the attention-first order decides who is shown
MAX_ROWS = 7
WAITED_SHOWN_S = 0.5  # a call that waited for the user this long says so
# the order rows are shown in: what needs the user, then what runs, then what failed, then what waits
ORDER: dict[CallState, int] = {
    CallState.awaiting_approval: 0,
    CallState.executing: 1,
    CallState.error: 2,
    CallState.validating: 3,
    CallState.scheduled: 3,
    CallState.cancelled: 4,
    CallState.success: 5,
}


QueueEntry = CallRecord  # a row of the queue is the call's record


def queue_text(entries: list[QueueEntry], now: float, max_rows: int = MAX_ROWS) -> Text:
    """The queue as text: a summary line, then the rows that matter most, done calls counted, not listed."""
    text = Text(no_wrap=True, overflow="ellipsis")
    counts: dict[str, int] = {}
    for entry in entries:
        word = STATE_WORDS[entry.call.state]
        counts[word] = counts.get(word, 0) + 1
    text.append("Tool calls: " + ", ".join(f"{n} {word}" for word, n in counts.items()), style="bold")
    shown = sorted((e for e in entries if e.call.state is not CallState.success),
                   key=lambda e: ORDER[e.call.state])  # stable: in call order within a state
    finished = [e for e in entries if e.call.state is CallState.success]
    if len(shown) + len(finished) <= max_rows:  # room for everything: done calls are listed too
        shown, finished = shown + finished, []
    hidden = shown[max_rows:]
    for entry in shown[:max_rows]:
        _row(text, entry, now)
    if hidden:
        text.append(f"\n … {len(hidden)} more ({', '.join(sorted({STATE_WORDS[e.call.state] for e in hidden}))})",
                    style="dim")
    if finished:
        tool = sum(e.tool_seconds(now) or 0.0 for e in finished)
        text.append(f"\n {STATE_ICONS[CallState.success]} {len(finished)} done", style="dim")
        if tool:
            text.append(f" in {format_elapsed(tool)}", style="dim")
    return text


def _row(text: Text, entry: QueueEntry, now: float) -> None:
    call = entry.call
    text.append("\n")
    text.append(f" {STATE_ICONS[call.state]} ", style="bold")
    text.append(call_title(call), style="bold")
    if target := call_target(call):
        text.append(f"  {short(target, 70)}")
    text.append(f"  {STATE_WORDS[call.state]}", style="italic")
    if (seconds := entry.tool_seconds(now)) is not None and (seconds or entry.duration_ms is not None):
        text.append(f" {format_elapsed(seconds)}", style="dim")
    waited = entry.waiting_s(now)
    if waited >= WAITED_SHOWN_S:
        text.append(f" (waited {format_elapsed(waited)} for you)", style="dim")
    if call.state is CallState.executing and entry.last_output:
        text.append(f"\n     │ {short(entry.last_output, 100)}", style="dim")
    if call.state is CallState.error and entry.error:
        text.append(f"\n     └ {short(entry.error, 110)}", style="bold")


class ToolQueue(Static):
    """One Static that renders every line at once: cheap to update many times a second."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: dict[str, CallRecord] = {}  # the current turn's calls
        self.closed = False  # its turn ended: late events of its calls update it without showing it again

    def on_mount(self) -> None:
        self.display = False
        self.set_interval(0.5, self._tick)

    def _tick(self) -> None:
        if self.display and any(entry.call.state in (CallState.executing, CallState.awaiting_approval)
                                for entry in self.entries.values()):
            self.refresh_lines()

    def start_turn(self) -> None:
        self.entries.clear()
        self.closed = False
        self.refresh_lines()

    def end_turn(self) -> None:
        """The turn is over: its calls stay in the chat as cards, so the queue steps aside."""
        self.closed = True
        self.display = False

    def show(self, record: CallRecord) -> None:
        """A call appeared or changed (state, result)."""
        if record.call_id not in self.entries and self.closed:
            # a call after the turn closed (no turn of its own): a fresh queue, not the old one
            self.entries.clear()
            self.closed = False
        self.entries[record.call_id] = record
        self.refresh_lines()

    def output_changed(self, record: CallRecord) -> None:
        """New live output of a call: shown when the call is one of this turn's."""
        if record.call_id in self.entries:
            self.refresh_lines()

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for entry in self.entries.values():
            word = STATE_WORDS[entry.call.state]
            counts[word] = counts.get(word, 0) + 1
        return counts

    def queue_text(self) -> Text:
        return queue_text(list(self.entries.values()), time.monotonic())

    def refresh_lines(self) -> None:
        self.display = bool(self.entries) and not self.closed
        if self.display:
            self.update(self.queue_text())
