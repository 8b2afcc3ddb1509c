"""The live tool-call queue: the calls of the current turn, one line each, with live output for commands."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from gemini_tui.app.widgets.call_format import (
    STATE_ICONS,
    STATE_WORDS,
    call_title,
    elapsed_seconds,
    format_elapsed,
    short,
)
from gemini_tui.core.events import CallState, ToolCallInfo


@dataclass
class QueueEntry:
    call: ToolCallInfo
    last_output: str = ""
    duration_ms: int | None = None


class ToolQueue(Static):
    """One Static that renders every line at once: cheap to update many times a second."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: dict[str, QueueEntry] = {}

    def on_mount(self) -> None:
        self.display = False
        self.set_interval(0.5, self._tick)

    def _tick(self) -> None:
        if any(entry.call.state is CallState.executing for entry in self.entries.values()):
            self.refresh_lines()

    def start_turn(self) -> None:
        self.entries.clear()
        self.refresh_lines()

    def end_turn(self) -> None:
        """The turn is over: its calls stay in the chat as cards, so the queue steps aside."""
        self.display = False

    def update_call(self, call: ToolCallInfo) -> None:
        entry = self.entries.get(call.call_id)
        if entry is None:
            self.entries[call.call_id] = QueueEntry(call)
        else:
            entry.call = call
        self.refresh_lines()

    def add_output(self, call_id: str, chunk: str) -> None:
        entry = self.entries.get(call_id)
        if entry is None:
            return
        lines = [line for line in chunk.splitlines() if line.strip()]
        if lines:
            entry.last_output = lines[-1]
            self.refresh_lines()

    def finish_call(self, call: ToolCallInfo, duration_ms: int) -> None:
        self.update_call(call)
        self.entries[call.call_id].duration_ms = duration_ms
        self.refresh_lines()

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for entry in self.entries.values():
            word = STATE_WORDS[entry.call.state]
            counts[word] = counts.get(word, 0) + 1
        return counts

    def queue_text(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        summary = ", ".join(f"{n} {word}" for word, n in self.counts().items())
        text.append(f"Tool calls: {summary}", style="bold")
        for entry in self.entries.values():
            call = entry.call
            text.append("\n")
            text.append(f" {STATE_ICONS[call.state]} ", style="bold")
            text.append(f"{call_title(call)}", style="bold")
            text.append(f"  {short(call.description, 70)}")
            text.append(f"  {STATE_WORDS[call.state]}", style="italic")
            if entry.duration_ms is not None:
                seconds = entry.duration_ms / 1000
            else:  # only a running call has a time worth watching
                seconds = elapsed_seconds(call) if call.state is CallState.executing else 0.0
            if seconds:
                text.append(f" {format_elapsed(seconds)}", style="dim")
            if call.state is CallState.executing and entry.last_output:
                text.append(f"\n     │ {short(entry.last_output, 100)}", style="dim")
        return text

    def refresh_lines(self) -> None:
        self.display = bool(self.entries)
        if self.entries:
            self.update(self.queue_text())
