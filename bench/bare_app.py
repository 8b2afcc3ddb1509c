"""The yardstick for the first frame: a bare Textual app with the kinds of widgets gemini-tui's first frame shows
(a header line, a log, a static, an input with the same placeholder, a footer). `python -m bench.bare_app`.
With GEMINI_TUI_START_MARKS=FILE it marks its first frame there as gemini-tui does (seconds and CPU seconds)."""

from __future__ import annotations

import json
import os
import time

from textual.app import App, ComposeResult
from textual.widgets import Footer, Header, Input, RichLog, Static


class BareApp(App[None]):
    def on_mount(self) -> None:
        if path := os.environ.get("GEMINI_TUI_START_MARKS"):
            self.call_after_refresh(self.mark, path)

    def mark(self, path: str) -> None:  # as gemini-tui's start marks, right after its first frame
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"step": "first frame", "cpu": time.process_time()}) + "\n")

    def compose(self) -> ComposeResult:
        yield Header()
        yield RichLog()
        yield Static("status")
        yield Input(placeholder="Ask anything")
        yield Footer()


if __name__ == "__main__":
    BareApp().run()
