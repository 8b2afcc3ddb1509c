"""A plain `str` display: Markdown, as tools write their summaries."""

from __future__ import annotations

from textual.widgets import Markdown

from gemini_tui.app.displays.factories import register_display


class MarkdownDisplay(Markdown):
    def __init__(self, text: str) -> None:
        super().__init__(text, classes="display display-markdown")


register_display(str, MarkdownDisplay)
