"""The strip of open sessions above the status line: one small tab each, the shown one marked; it takes no room
while only one session is open."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from gemini_tui.core.ground.terminal_text import clean_terminal_text


@dataclass(frozen=True)
class Tab:
    number: int
    title: str
    state: str  # "" idle, "busy" a turn runs, "waiting" it waits for the user
    current: bool


MARKS = {"busy": " …", "waiting": " ✋", "": ""}


class SessionTabs(Static):
    DEFAULT_CSS = """
    SessionTabs { height: 1; background: $panel; color: $text-muted; display: none; }
    SessionTabs.-several { display: block; }
    """

    def __init__(self) -> None:
        super().__init__("", id="session-tabs")
        self.tabs: tuple[Tab, ...] = ()

    def show(self, tabs: list[Tab]) -> None:
        if tuple(tabs) == self.tabs:
            return  # a redraw only when something changed (the strip is refreshed on a timer)
        self.tabs = tuple(tabs)
        self.set_class(len(tabs) > 1, "-several")  # shown or not: that lays the screen out, the text does not
        self.update(strip(tabs), layout=False)  # one line, the screen's width


def strip(tabs: list[Tab]) -> Text:
    line = Text(no_wrap=True, overflow="ellipsis")
    for tab in tabs:
        style = "bold reverse" if tab.current else ("bold" if tab.state == "waiting" else "")
        line.append(f" {tab.number} {clean_terminal_text(tab.title)}{MARKS.get(tab.state, '')} ", style=style)
        line.append(" ")
    return line
