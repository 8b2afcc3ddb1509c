"""SearchAnswer: the grounded answer as Markdown, then its numbered sources."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Markdown, Static

from gemini_tui.app.displays.factories import register_display
from gemini_tui.core.ground.display import SearchAnswer


class SearchAnswerDisplay(Vertical):
    def __init__(self, answer: SearchAnswer) -> None:
        super().__init__(classes="display display-search-answer")
        self.answer = answer

    def compose(self) -> ComposeResult:
        yield Static(Content.assemble(("Search: ", "$text-muted"), (self.answer.query, "bold")))
        yield Markdown(self.answer.answer)
        if self.answer.sources:
            lines = [Content.assemble((f"[{number}] ", "$text-muted"), source.title or source.url, "  ",
                                      (source.url, "$text-accent"))
                     for number, source in enumerate(self.answer.sources, 1)]
            yield Static(Content("\n").join(lines), classes="display-sources")


register_display(SearchAnswer, SearchAnswerDisplay)
