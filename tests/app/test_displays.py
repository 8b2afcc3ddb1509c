"""The display registry and its widgets: each display type gets its widget, mounted in a real app."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Markdown, Static

from gemini_tui.app.diff.file_diff import FileDiffDisplay
from gemini_tui.app.diff.view import DiffView
from gemini_tui.app.displays import register_display, widget_for
from gemini_tui.app.displays.directory_listing import DirectoryListingDisplay
from gemini_tui.app.displays.error import ErrorDisplayWidget
from gemini_tui.app.displays.fallback import GenericDisplay
from gemini_tui.app.displays.file_content import FileContentDisplay
from gemini_tui.app.displays.file_list import FileListDisplay
from gemini_tui.app.displays.markdown_text import MarkdownDisplay
from gemini_tui.app.displays.mcp_result import McpResultDisplay
from gemini_tui.app.displays.search_answer import SearchAnswerDisplay
from gemini_tui.app.displays.search_matches import SearchMatchesDisplay
from gemini_tui.app.displays.shell_output import ShellOutputDisplay
from gemini_tui.app.displays.web_page import WebPageDisplay
from gemini_tui.core.ground.display import (
    DirectoryListing,
    ErrorDisplay,
    FetchedPage,
    FileContent,
    FileDiff,
    FileList,
    LineMatch,
    ListingEntry,
    McpImage,
    McpResult,
    SearchAnswer,
    SearchMatches,
    SearchSource,
    ShellOutput,
    WebPage,
)

STYLES = Path(__file__).resolve().parents[2] / "styles"

SAMPLES: list[tuple[object, type[Widget]]] = [
    ("**done**", MarkdownDisplay),
    (FileDiff.between("/r/a.py", "x = 1\n", "x = 2\ny = 3\n"), FileDiffDisplay),
    (DirectoryListing("/r", (ListingEntry("src", True), ListingEntry("a.py", False, 2048)), 1),
     DirectoryListingDisplay),
    (FileList("Found 2 file(s)", ("a.py", "b.py"), ("big.bin",)), FileListDisplay),
    (SearchMatches("def (\\w+)", ".", "*.py", (LineMatch("a.py", 3, "def main():"),)), SearchMatchesDisplay),
    (FileContent("/r/a.py", "import os\nprint(os.sep)\n", 10, 40, True), FileContentDisplay),
    (ShellOutput("ls", "/r", "\x1b[31mred\x1b[0m\nplain\n", exit_code=0), ShellOutputDisplay),
    (ErrorDisplay("file_not_found", "File not found: a.py"), ErrorDisplayWidget),
    (WebPage("summarize", (FetchedPage("http://127.0.0.1/x", status=200, title="X", text="hello"),
                           FetchedPage("http://127.0.0.1/y", error="timeout"))), WebPageDisplay),
    (SearchAnswer("q", "An answer [1]", (SearchSource("Src", "http://127.0.0.1/s"),)), SearchAnswerDisplay),
    (McpResult("time", "get_time", "12:00", (McpImage("image/png", "aGVsbG8="),), is_error=False),
     McpResultDisplay),
    ({"some": "thing"}, GenericDisplay),
]


class Harness(App[None]):
    CSS_PATH: ClassVar = [STYLES / "displays.tcss", STYLES / "diff_review.tcss"]

    def __init__(self, widgets: list[Widget]) -> None:
        super().__init__()
        self.widgets = widgets

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield from self.widgets


def shown_text(widget: Widget) -> str:
    """What a widget (and its children) would show, as plain text."""
    texts = []
    for node in [widget, *widget.query("*")]:
        if isinstance(node, Static):
            texts.append(str(node.render()))
    return "\n".join(texts)


def test_every_display_type_has_its_widget() -> None:
    for display, widget_type in SAMPLES:
        assert type(widget_for(display)) is widget_type, display


async def test_every_widget_mounts_and_shows_its_content() -> None:
    widgets = [widget_for(display) for display, _ in SAMPLES]
    app = Harness(widgets)
    async with app.run_test(size=(100, 60)) as pilot:
        await pilot.pause()
        listing = shown_text(widgets[2])
        assert "▸ src/" in listing and "2.0 KB" in listing and "1 ignored" in listing
        assert '1 match(es) for "def (\\w+)" in . (*.py)' in shown_text(widgets[4])
        assert "a.py\n      3: def main():" in shown_text(widgets[4])
        file_text = shown_text(widgets[5])
        assert "10 import os" in file_text and "11 print(os.sep)" in file_text
        assert "✗ file not found: File not found: a.py" in shown_text(widgets[7])
        assert "timeout" in shown_text(widgets[8]) and "hello" in shown_text(widgets[8])
        assert "[image image/png, 5 bytes]" in shown_text(widgets[10])
        diff_view = widgets[1].query_one(DiffView)
        assert diff_view.size.height > 0
        rendered = [diff_view.render_line(y).text for y in range(diff_view.size.height)]
        assert any("+ x = 2" in line for line in rendered) and any("- x = 1" in line for line in rendered)
        assert "+2 -1" in shown_text(widgets[1])
        assert isinstance(widgets[9].query_one(Markdown), Markdown)


async def test_shell_output_appends_live_lines_and_keeps_colour() -> None:
    display = ShellOutputDisplay(command="make")
    app = Harness([display])
    async with app.run_test(size=(80, 30)) as pilot:
        assert "running" in str(display.header.render())
        display.append("one\ntw")
        assert display.lines_written == 1  # "tw" waits for its newline
        display.append("o\n\x1b[32mgreen\x1b[0m\n50%\r100%\n")
        await pilot.pause()
        assert display.lines_written == 4
        lines = [strip.text for strip in display.log_view.lines]
        assert lines[:4] == ["one", "two", "green", "100%"]
        green = display.log_view.lines[2]
        assert any(seg.style is not None and seg.style.color is not None for seg in green)
        display.append("tail without newline")
        display.finish(ShellOutput("make", "/r", "", exit_code=2))
        await pilot.pause()
        assert display.lines_written == 5 and display.has_class("-failed")
        assert "exit 2" in str(display.header.render())


def test_a_new_display_type_is_one_class_and_one_registration() -> None:
    @dataclass(frozen=True)
    class Weather:
        sky: str

    @dataclass(frozen=True)
    class Storm(Weather):
        wind: int = 0

    class WeatherDisplay(Static):
        def __init__(self, weather: Weather) -> None:
            super().__init__(f"sky: {weather.sky}")

    assert isinstance(widget_for(Weather("blue")), GenericDisplay)
    register_display(Weather, WeatherDisplay)
    assert isinstance(widget_for(Weather("blue")), WeatherDisplay)
    assert isinstance(widget_for(Storm("grey", 9)), WeatherDisplay)  # subclasses inherit the widget
