"""The Ctrl+B history panel as the main screen holds it: a stand-in (never mounted) until the panel is mounted after
the first frame (its module loads then), every call record shown in it, opened beside the chat or over it when
narrow."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widget import Widget
from textual.widgets import Static

from gemini_tui.app.call_log import CallLog, CallRecord
from gemini_tui.app.held_updates import HeldUpdates

if TYPE_CHECKING:
    from gemini_tui.app.widgets.history_panel import HistoryPanel

HISTORY_BESIDE_MIN_WIDTH = 80  # narrower than this, the history panel covers the chat while it is open


class HistorySide:
    """`widget` is the panel once mounted (a stand-in before); `screen` is where it is mounted,
    and whose class says when the panel takes the whole body."""

    def __init__(self, screen: Widget, calls: CallLog) -> None:
        self.screen = screen
        self.calls = calls
        self.widget: Widget = Static(id="history-placeholder")  # never mounted: the first frame has no panel
        self.widget.display = False
        self.panel: HistoryPanel | None = None
        self.held = HeldUpdates()  # the panel's, once it is mounted
        self.asked_open = False  # Ctrl+B before the panel is there: kept (the placeholder is never shown)

    async def mount(self) -> None:
        from textual.widget import MountError

        from gemini_tui.app.widgets.history_panel import HistoryPanel

        panel = HistoryPanel(id="history")
        panel.display = self.asked_open  # Ctrl+B pressed before the panel was there: it opens as asked
        panel.held = self.held
        placeholder, self.widget = self.widget, panel
        self.fit()  # opening narrow, it must take the whole body from its first layout (a 0-wide prompt crashes)
        try:
            await self.screen.query_one("#body").mount(panel)
        except MountError:  # the screen is being taken down (a quit right after the start): nothing to show
            self.widget = placeholder
            return
        self.panel = panel
        panel.display = self.asked_open  # a Ctrl+B while it was being mounted counts too
        self.fit()
        for record in self.calls.records():  # calls made before the panel was there
            panel.show(record)
        if self.is_open:
            self._focus()

    def show(self, record: CallRecord) -> None:
        if self.panel is not None:
            self.panel.show(record)

    @property
    def is_open(self) -> bool:
        return bool(self.widget.display)

    def holds(self, widget: Widget) -> bool:
        """Whether `widget` is in the open panel (its keys are its own)."""
        return self.is_open and self.widget in widget.ancestors_with_self

    def fit(self) -> None:
        # beside the chat the panel needs 40 columns and the chat as many; narrower, it takes the whole body
        self.screen.set_class(self.is_open and self.screen.size.width < HISTORY_BESIDE_MIN_WIDTH, "-history-full")

    def toggle(self) -> bool:
        """Opens the panel (its filter takes the focus) or closes it; True when it is open now."""
        if self.panel is None:
            self.asked_open = not self.asked_open
            return self.asked_open
        self.widget.display = not self.widget.display
        self.fit()
        if self.is_open:
            self._focus()
        return self.is_open

    def _focus(self) -> None:
        filters = self.widget.query("Input")
        (filters.first() if filters else self.widget).focus()
