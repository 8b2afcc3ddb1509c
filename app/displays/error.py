"""ErrorDisplay: what went wrong, with its kind."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from gemini_tui.app.displays.factories import register_display
from gemini_tui.core.ground.display import ErrorDisplay


class ErrorDisplayWidget(Static):
    def __init__(self, display: ErrorDisplay) -> None:
        self.error = display
        text = Content.assemble((f"✗ {display.kind.replace('_', ' ')}: ", "bold"), display.message)
        super().__init__(text, classes="display display-error")


register_display(ErrorDisplay, ErrorDisplayWidget)
