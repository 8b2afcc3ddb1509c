"""The history panel: newest first, live state changes, filtering 5,000 calls, details of a call."""

from __future__ import annotations

import random
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.widgets import Input, Static

from gemini_tui.app.call_log import CallLog
from gemini_tui.app.displays.error import ErrorDisplayWidget
from gemini_tui.app.screens.history_details import HistoryDetailsScreen, llm_text
from gemini_tui.app.widgets.history_panel import HistoryPanel
from gemini_tui.core.ground.display import ErrorDisplay
from gemini_tui.core.ground.events import CallState, ToolCallInfo
from gemini_tui.core.ground.parts import InlineDataPart, TextPart
from gemini_tui.core.ground.tool_result import ToolErrorKind, ToolResult

STYLES = Path(__file__).resolve().parents[2] / "styles"


class Harness(App[None]):
    CSS_PATH: ClassVar = [STYLES / "history.tcss", STYLES / "displays.tcss"]

    def __init__(self) -> None:
        super().__init__()
        self.calls = CallLog()

    def compose(self) -> ComposeResult:
        yield HistoryPanel(id="history")

    @on(HistoryPanel.DetailsRequested)
    def open_details(self, event: HistoryPanel.DetailsRequested) -> None:
        self.push_screen(HistoryDetailsScreen(event.record))


def call(n: int, state: CallState = CallState.executing, name: str = "read_file") -> ToolCallInfo:
    return ToolCallInfo(f"c{n}", name, {"path": f"/r/f{n}.py"}, state, description=f"f{n}.py",
                        display_name="ReadFile" if name == "read_file" else "Shell", started_at=100.0)


def rows(panel: HistoryPanel) -> list[str]:
    options = panel.option_list
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_newest_first_and_state_changes_update_the_row() -> None:
    app = Harness()
    async with app.run_test(size=(80, 30)) as pilot:
        panel = app.query_one(HistoryPanel)
        panel.show(app.calls.update(call(1)))
        panel.show(app.calls.update(call(2)))
        await pilot.pause()
        assert panel.visible_ids == ["c2", "c1"]
        assert rows(panel)[1].startswith("◐ ReadFile") and "f1.py" in rows(panel)[1]
        panel.show(app.calls.finish(call(1, CallState.success), ToolResult("text", "shown"), 1500))
        await pilot.pause()
        assert rows(panel)[1].startswith("✓ ReadFile") and rows(panel)[1].endswith("1.5s")
        assert panel.visible_ids == ["c2", "c1"]
        assert "2 calls" in str(panel.query_one("#history-count").render())
        panel.option_list.highlighted = 1  # the user is on c1 when a new call arrives
        panel.show(app.calls.update(call(3)))
        await pilot.pause()
        assert panel.visible_ids == ["c3", "c2", "c1"]
        assert panel.option_list.highlighted_option.id == "c1"
        assert [row.split()[0] for row in rows(panel)] == ["◐", "◐", "✓"]


async def test_filter_by_tool_description_and_status() -> None:
    app = Harness()
    async with app.run_test(size=(80, 30)) as pilot:
        panel = app.query_one(HistoryPanel)
        panel.show(app.calls.update(call(1)))
        panel.show(app.calls.update(call(2, name="run_shell_command")))
        failed = ToolResult.failure(ToolErrorKind.file_not_found, "nope")
        panel.show(app.calls.finish(call(3, CallState.error), failed, 5))
        await pilot.pause()
        panel.query_one(Input).focus()
        await pilot.press(*"shell")
        await pilot.pause()
        assert panel.visible_ids == ["c2"]
        panel.set_filter("failed")
        await pilot.pause()
        assert panel.visible_ids == ["c3"]
        panel.set_filter("readfile f1")
        await pilot.pause()
        assert panel.visible_ids == ["c1"]
        assert "1 of 3 calls" in str(panel.query_one("#history-count").render())
        # a call that starts matching the filter appears; one that stops matching leaves
        panel.show(app.calls.update(call(1, CallState.cancelled)))
        panel.set_filter("cancelled")
        await pilot.pause()
        assert panel.visible_ids == ["c1"]
        panel.show(app.calls.update(call(1, CallState.success)))
        await pilot.pause()
        assert panel.visible_ids == []


async def test_five_thousand_calls_add_and_filter() -> None:
    app = Harness()
    async with app.run_test(size=(80, 40)) as pilot:
        panel = app.query_one(HistoryPanel)
        names = ["run_shell_command", "read_file"]
        for n in range(5000):
            panel.show(app.calls.update(call(n, name=names[n % 2])))
        for n in range(0, 5000, 3):
            panel.show(app.calls.finish(call(n, CallState.success, name=names[n % 2]), ToolResult("ok", "ok"), n))
        await pilot.pause()
        assert len(panel.visible_ids) == 5000 and panel.visible_ids[0] == "c4999"
        panel.set_filter("f4999")
        await pilot.pause()
        assert panel.visible_ids == ["c4999"]
        panel.set_filter("shell done")
        await pilot.pause()
        expected = [f"c{n}" for n in reversed(range(5000)) if n % 2 == 0 and n % 3 == 0]
        assert panel.visible_ids == expected
        panel.set_filter("")
        await pilot.pause()
        assert len(panel.visible_ids) == 5000


async def test_enter_opens_details_with_args_llm_content_and_display() -> None:
    app = Harness()
    async with app.run_test(size=(100, 40)) as pilot:
        panel = app.query_one(HistoryPanel)
        panel.show(app.calls.update(call(1)))
        result = ToolResult.failure(ToolErrorKind.file_not_found, "File not found: /r/f1.py")
        panel.show(app.calls.finish(call(1, CallState.error), result, 12))
        await pilot.pause()
        panel.query_one(Input).focus()
        await pilot.press("enter")  # from the filter: the details of the highlighted (first) match
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, HistoryDetailsScreen)
        assert '"path": "/r/f1.py"' in str(screen.query_one("#details-args", Static).render())
        assert "File not found: /r/f1.py" in str(screen.query_one("#details-llm", Static).render())
        assert isinstance(screen.query_one(ErrorDisplayWidget).error, ErrorDisplay)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HistoryDetailsScreen)
        assert isinstance(app.focused, Input)  # back in the filter, to narrow again
        await pilot.press("down", "enter")  # from the list too
        await pilot.pause()
        assert isinstance(app.screen, HistoryDetailsScreen)


STATES = (CallState.executing, CallState.success, CallState.error, CallState.cancelled)
NAMES = ("read_file", "run_shell_command", "glob", "replace")


async def test_generated_filters_enter_opens_the_first_match_straight_from_the_filter() -> None:
    """Type a filter, press Enter (no Down first): the details of the first row the filter leaves, or nothing
    when nothing matches; a row highlighted before the filter changed does not win over the first match."""
    rng = random.Random(3)
    app = Harness()
    async with app.run_test(size=(100, 40)) as pilot:
        panel = app.query_one(HistoryPanel)
        for n in range(40):
            info = call(n, rng.choice(STATES), rng.choice(NAMES))
            panel.show(app.calls.update(info))
        await pilot.pause()
        words = ["read", "shell", "glob", "replace", "f1", "f2", "f3", "done", "failed", "running", "zzz", ""]
        for _ in range(16):
            field = panel.query_one(Input)
            field.focus()
            panel.option_list.highlighted = rng.randrange(panel.option_list.option_count or 1) \
                if panel.option_list.option_count else None  # an earlier highlight, before the filter moves
            field.value = " ".join(rng.sample(words, rng.randint(1, 2))).strip() or "f"  # as typing does: Changed
            await pilot.press("enter")  # at once: the list may not have been filtered yet
            await pilot.pause()
            terms = panel.filter_text.lower().split()
            expected = [e.call.call_id for e in reversed(panel.entries.values()) if e.matches(terms)]
            assert panel.visible_ids == expected
            if not expected:
                assert not isinstance(app.screen, HistoryDetailsScreen)
                continue
            screen = app.screen
            assert isinstance(screen, HistoryDetailsScreen), panel.filter_text
            assert screen.record.call_id == expected[0]
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, HistoryDetailsScreen)


def test_llm_text_of_parts() -> None:
    result = ToolResult([TextPart("see image"), InlineDataPart("image/png", "aGVsbG8=")], "x")
    assert llm_text(result) == "see image\n[inline data image/png, 5 bytes]"
    assert llm_text(None) == "(no result yet)"


async def test_clear_empties_the_panel() -> None:
    app = Harness()
    async with app.run_test(size=(80, 30)) as pilot:
        panel = app.query_one(HistoryPanel)
        panel.show(app.calls.update(call(1)))
        panel.show(app.calls.update(call(2)))
        await pilot.pause()
        panel.clear()
        await pilot.pause()
        assert panel.visible_ids == [] and panel.option_list.option_count == 0
        assert "0 calls" in str(panel.query_one("#history-count").render())
        panel.show(app.calls.update(call(3)))
        await pilot.pause()
        assert panel.visible_ids == ["c3"]
