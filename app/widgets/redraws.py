"""Redrawing text that changes many times a second, cheaply: at most once per interval (`Throttled`), and without
laying the screen out again when it keeps its number of lines (`update_text`): a screen's layout is what a redraw
costs most once the chat holds many cards."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widget import Widget

from gemini_tui.app.keys_first import waits_for_typing

if TYPE_CHECKING:
    from textual.message_pump import MessagePump
    from textual.timer import Timer
    from textual.widgets import Static

EVERY_S = 0.15  # a subagent group's progress: several of its calls a second are one redraw


def update_text(widget: Static, text: Text) -> None:
    """`widget` shows `text` now; its size is worked out again only when its number of lines changed (the widgets
    given here fill their width). Text that may wrap is always laid out: its height is not its count of lines."""
    old = widget.content
    same = bool(text.no_wrap) and isinstance(old, Text) and old.plain.count("\n") == text.plain.count("\n")
    widget.update(text, layout=not same)


class Throttled:
    """A redraw asked for many times a second, done at most once per interval: the first at once, the ones after
    it within the interval as one at its end (so the last state always shows)."""

    def __init__(self, owner: MessagePump, redraw: Callable[[], object], every_s: float = EVERY_S) -> None:
        self.owner = owner
        self.redraw = redraw
        self.every_s = every_s
        self._last = float("-inf")
        self._timer: Timer | None = None

    def __call__(self) -> None:
        if self._timer is not None:
            return  # a redraw is due at the interval's end: it shows this change too
        wait = self._last + self.every_s - time.monotonic()
        if wait <= 0:
            self._run()
        else:
            self._timer = self.owner.set_timer(wait, self._due)

    def _due(self) -> None:
        self._timer = None
        self._run()

    def _run(self) -> None:
        if isinstance(self.owner, Widget) and waits_for_typing(self.owner, self._run):
            return  # the user types: it is drawn with what else waits for the typing
        self._last = time.monotonic()
        self.redraw()
