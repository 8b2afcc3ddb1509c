"""The generic display for types nobody registered: the object's fields, pretty-printed."""

from __future__ import annotations

from textual.widgets import Pretty

from gemini_tui.app.displays.factories import register_display


class GenericDisplay(Pretty):
    def __init__(self, display: object) -> None:
        super().__init__(display, classes="display display-generic")


register_display(object, GenericDisplay)
