"""The live tool-call queue: the calls of the current turn that need attention first (awaiting approval,
running with their live output, failed with their error), the finished ones folded into a count.

Durations are the tool's own time (from running to done); the time spent waiting for the user is shown apart.
Rows are the app's call records (`app.call_log`); the queue keeps only which of them belong to the current turn.
A subagent's calls are shown as a group under its invoke_agent row."""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.text import Text

from gemini_tui.app.call_log import CallRecord
from gemini_tui.app.held_updates import HeldUpdates
from gemini_tui.app.keys_first import waits_for_typing
from gemini_tui.app.widgets.agent_group import GROUP_ROWS, outcome, progress
from gemini_tui.app.widgets.call_format import (
    STATE_ICONS,
    STATE_WORDS,
    call_target,
    call_title,
    format_elapsed,
    is_agent_call,
    short,
)
from gemini_tui.app.widgets.kept_lines import KeptLines
from gemini_tui.app.widgets.redraws import Throttled
from gemini_tui.core.ground.call_state import CallState

# rows shown before the rest are folded into "… n more"; the attention-first order decides who is shown
MAX_ROWS = 7
QUEUE_LINES = 9  # the queue's box holds 10 lines, its top border one of them (styles/app.tcss)
GROUP_INDENT = "    "  # a subagent's calls, under its invoke_agent row
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
    """The queue as text: a summary line, then the rows that matter most, done calls counted, not listed. A
    subagent's calls are rows of their invoke_agent call's group, indented under it, not rows of their own."""
    text = Text(no_wrap=True, overflow="ellipsis")
    counts: dict[str, int] = {}
    for entry in entries:
        word = STATE_WORDS[entry.call.state]
        counts[word] = counts.get(word, 0) + 1
    text.append("Tool calls: " + ", ".join(f"{n} {word}" for word, n in counts.items()), style="bold")
    ids = {entry.call_id for entry in entries}
    children: dict[str, list[QueueEntry]] = {}
    top: list[QueueEntry] = []
    for entry in entries:
        parent = entry.call.parent_call_id
        if parent and parent in ids:
            children.setdefault(parent, []).append(entry)
        else:
            top.append(entry)

    def rank(entry: QueueEntry) -> int:  # a group asks for attention when any of its calls does
        return min(ORDER[e.call.state] for e in (entry, *children.get(entry.call_id, ())))

    shown, hidden, finished = _fold(top, max_rows, rank)
    groups = sum(1 for entry in shown if is_agent_call(entry.call))
    # the lines left once the summary, the other rows, the folded counts and each group's own line are drawn,
    # shared by the groups: several agents at once all stay in view, each with what matters most in it
    used = 1 + sum(_lines(e) for e in shown if not is_agent_call(e.call)) + bool(hidden) + bool(finished) + groups
    room = max(1, (QUEUE_LINES - used) // groups) if groups else 0
    for entry in shown:
        if is_agent_call(entry.call):
            _group(text, entry, children.get(entry.call_id, []), now, room)
        else:
            _row(text, entry, now)
    _folded(text, hidden, finished, now, "")
    return text


def _lines(entry: QueueEntry) -> int:
    """The lines a call's row takes: its own, and its live output or its error under it."""
    call = entry.call
    return 1 + (call.state is CallState.executing and bool(entry.last_output)) \
        + (call.state is CallState.error and bool(entry.error))


def _fold(entries: list[QueueEntry], limit: int,
          rank: Callable[[QueueEntry], int]) -> tuple[list[QueueEntry], list[QueueEntry], list[QueueEntry]]:
    """(shown, hidden, finished): attention first; done calls listed only when everything fits."""
    shown = sorted((e for e in entries if e.call.state is not CallState.success), key=rank)  # stable: call order
    finished = [e for e in entries if e.call.state is CallState.success]
    if len(shown) + len(finished) <= limit:  # room for everything: done calls are listed too
        shown, finished = shown + finished, []
    return shown[:limit], shown[limit:], finished


def _folded(text: Text, hidden: list[QueueEntry], finished: list[QueueEntry], now: float, indent: str) -> None:
    if hidden:
        states = ", ".join(sorted({STATE_WORDS[e.call.state] for e in hidden}))
        text.append(f"\n{indent} … {len(hidden)} more ({states})", style="dim")
    if finished:
        tool = sum(e.tool_seconds(now) or 0.0 for e in finished)
        text.append(f"\n{indent} {STATE_ICONS[CallState.success]} {len(finished)} done", style="dim")
        if tool:
            text.append(f" in {format_elapsed(tool)}", style="dim")


def _group(text: Text, entry: QueueEntry, calls: list[QueueEntry], now: float, room: int) -> None:
    """A subagent at work: its invoke_agent row with its progress, its own calls under it (in `room` lines, what
    needs the user first, the rest in one count when there is a line for it: the group's row counts them all
    anyway), its result at the end."""
    _row(text, entry, now, live_output=False)
    text.append(f" · {progress(calls)}", style="dim")
    ordered = sorted(calls, key=lambda e: ORDER[e.call.state])  # stable: call order within a state
    budget = min(room, GROUP_ROWS + 1) - bool(outcome(entry))
    shown: list[QueueEntry] = []
    for call in ordered:
        after = len(ordered) - len(shown) - 1  # calls left after this one: counting them takes a line
        if sum(_lines(e) for e in shown) + _lines(call) + bool(after) <= budget:
            shown.append(call)
            continue
        if not shown and _lines(call) <= budget:  # the most urgent one, even with no line left to count the rest
            shown.append(call)
        break
    for call in shown:
        _row(text, call, now, indent=GROUP_INDENT)
    if (rest := ordered[len(shown):]) and sum(_lines(e) for e in shown) < budget:
        counts: dict[str, int] = {}
        for call in rest:
            counts[STATE_WORDS[call.call.state]] = counts.get(STATE_WORDS[call.call.state], 0) + 1
        said = ", ".join(f"{n} {word}" for word, n in counts.items())
        text.append(f"\n{GROUP_INDENT} … {len(rest)} more ({said})", style="dim")
    if said := outcome(entry):
        text.append(f"\n{GROUP_INDENT} └ {said}", style="dim")


def _row(text: Text, entry: QueueEntry, now: float, indent: str = "", live_output: bool = True) -> None:
    call = entry.call
    text.append("\n" + indent)
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
    if live_output and call.state is CallState.executing and entry.last_output:
        text.append(f"\n{indent}     │ {short(entry.last_output, 100)}", style="dim")
    if call.state is CallState.error and entry.error:
        text.append(f"\n{indent}     └ {short(entry.error, 110)}", style="bold")


class ToolQueue(KeptLines):
    """Its lines are drawn one by one and kept (`KeptLines`). Its model is `entries`: while its session is hidden
    only they change, and the lines are drawn once when it shows; a subagent's calls redraw it a few times a second
    at most."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: dict[str, CallRecord] = {}  # the current turn's calls
        self.closed = False  # its turn ended: late events of its calls update it without showing it again
        self.held = HeldUpdates()
        self._subagents_changed = Throttled(self, self.refresh_lines)
        self.display = False  # until its turn has calls (it may get them before it is mounted)

    def on_mount(self) -> None:
        self.set_interval(0.5, self._tick)

    def _tick(self) -> None:
        live = (CallState.executing, CallState.awaiting_approval)
        running = self.display and self.held.shown() and any(entry.call.state in live
                                                             for entry in self.entries.values())
        if running and not waits_for_typing(self, self._tick):
            self.refresh_lines()

    def start_turn(self) -> None:
        self.entries.clear()
        self.closed = False
        self.refresh_lines()

    def end_turn(self) -> None:
        """The turn is over: its calls stay in the chat as cards, so the queue steps aside."""
        self.closed = True
        self.refresh_lines()

    def show(self, record: CallRecord) -> None:
        """A call appeared or changed (state, result)."""
        if record.call_id not in self.entries and self.closed:
            # a call after the turn closed (no turn of its own): a fresh queue, not the old one
            self.entries.clear()
            self.closed = False
        self.entries[record.call_id] = record
        self._changed(record)

    def output_changed(self, record: CallRecord) -> None:
        """New live output of a call: shown when the call is one of this turn's (a group's row shows its calls,
        not its agent's progress lines)."""
        if record.call_id in self.entries and not is_agent_call(record.call):
            self._changed(record)

    def _changed(self, record: CallRecord) -> None:
        if record.call.parent_call_id and self.held.shown():
            self._subagents_changed()
        else:
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
        if not self.held.shown():
            self.held.redraw_later(self.refresh_lines)
            return
        self.display = bool(self.entries) and not self.closed
        if self.display:
            self.show_lines(self.queue_text())
