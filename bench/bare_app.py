"""The yardstick for the first frame: a bare Textual app with the kinds of widgets gemini-tui's first frame shows
(a header line, a log, a static, an input with the same placeholder, a footer). `python -m bench.bare_app`."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Footer, Header, Input, RichLog, Static


class BareApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Header()
        yield RichLog()
        yield Static("status")
        yield Input(placeholder="Ask anything")
        yield Footer()


if __name__ == "__main__":
    BareApp().run()
