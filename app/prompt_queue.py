"""Prompts sent while a turn runs: each goes when the turn before it ends; Up takes the last back into the prompt,
Ctrl+C drops it, Esc (cancelling the turn) brings them all back unsent."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from gemini_tui.app.widgets.call_format import short

HINT = "   sent when the turn ends · ↑ edits the last · Ctrl+C removes it · Esc cancels the turn"


class PromptQueue(Static):
    """The queued prompts, oldest first, shown above the prompt while there are any."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.prompts: list[str] = []
        self.display = False  # until a prompt waits (one may before it is mounted)

    def add(self, text: str) -> None:
        self.prompts.append(text)
        self._changed()

    def take_next(self) -> str | None:
        """The oldest prompt, out of the queue (it is sent now)."""
        return self._take(0)

    def take_last(self) -> str | None:
        """The newest prompt, out of the queue (edited again, or dropped)."""
        return self._take(-1)

    def take_all(self) -> list[str]:
        taken, self.prompts = self.prompts, []
        self._changed()
        return taken

    def _take(self, index: int) -> str | None:
        if not self.prompts:
            return None
        text = self.prompts.pop(index)
        self._changed()
        return text

    def _changed(self) -> None:
        self.display = bool(self.prompts)
        if self.prompts:
            self.update(Text("\n".join([*(f"⏳ {short(text, 200)}" for text in self.prompts), HINT])))
        if self.is_attached:
            self.screen.refresh_bindings()  # Up edits the last queued prompt only while there is one
