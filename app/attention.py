"""Telling the user something waits for them: the window title while a confirmation waits, and a bell with a
desktop notification (OSC 9) when one appears or a long turn ends."""

from __future__ import annotations

from collections.abc import Callable


class Attention:
    """`signal_terminal(title=..., notify=...)` is the app's; `ask` is called with what waits, or None when
    nothing waits any more (the title comes back)."""

    def __init__(self, signal_terminal: Callable[..., None]) -> None:
        self.signal_terminal = signal_terminal
        self.title_set = False

    def ask(self, reason: str | None, notify_on: bool = True) -> None:
        if reason == "approval":
            self.title_set = True
            self.signal_terminal(title="✋ gemini-tui: action required",
                                 notify="gemini-tui: a tool call waits for your approval" if notify_on else None)
        elif reason == "answer":
            if notify_on:
                self.signal_terminal(notify="gemini-tui: the answer is ready")
        elif self.title_set:
            self.title_set = False
            self.signal_terminal(title="gemini-tui")
