"""The Ctrl+B history panel inside the app: fed by the session's calls, filtered by typing, details on Enter."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import OptionList

from gemini_tui.app.screens.history_details import HistoryDetailsScreen
from gemini_tui.app.widgets.history_panel import HistoryPanel
from gemini_tui.app.widgets.key_bar import KeyBar
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes.scripted_model import ScriptedModel, call, text


async def test_history_filter_and_details(root: Path, tmp_path: Path) -> None:
    (root / "a.txt").write_text("a\n")
    (root / "b.md").write_text("b\n")
    model = (ScriptedModel().add(call("glob", pattern="*.txt"), call("glob", pattern="*.md")).add(text("found"))
             .add(call("run_shell_command", command="echo hi")).add(text("ran")))
    app = make_app(root, tmp_path, model, approval_mode="yolo")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "find")
        await wait_for(pilot, lambda: not screen.busy and model.requests and len(model.requests) == 2)
        await type_and_send(pilot, "run")
        await wait_for(pilot, lambda: not screen.busy and len(model.requests) == 4)
        panel = screen.query_one(HistoryPanel)
        assert not panel.display
        await pilot.press("ctrl+b")
        assert panel.display
        options = panel.query_one(OptionList)
        await wait_for(pilot, lambda: options.option_count == 3)
        assert "Shell" in str(options.get_option_at_index(0).prompt)  # newest first
        await pilot.press(*"FindFiles")
        await wait_for(pilot, lambda: options.option_count == 2)
        await pilot.press("enter")  # straight from the filter: the details of the first match
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryDetailsScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HistoryDetailsScreen))
        await pilot.press("ctrl+b")
        assert not panel.display
        assert screen.prompt.input.has_focus


async def test_escape_closes_the_panel_and_returns_to_the_prompt(root: Path, tmp_path: Path) -> None:
    model = ScriptedModel().add(call("glob", pattern="*.txt")).add(text("found"))
    app = make_app(root, tmp_path, model, approval_mode="yolo")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "find")
        await wait_for(pilot, lambda: not screen.busy and len(model.requests) == 2)
        panel = screen.query_one(HistoryPanel)
        await pilot.press("ctrl+b")
        await pilot.press("down")  # from the filter into the list
        assert panel.query_one(OptionList).has_focus
        await pilot.press("escape")
        assert not panel.display
        assert screen.prompt.input.has_focus
        await pilot.press("ctrl+b", "escape")  # also from the filter
        assert not panel.display
        await pilot.press(*"next")
        assert screen.prompt.input.text == "next"


async def test_details_show_the_approval_and_the_rule_that_decided(root: Path, tmp_path: Path) -> None:
    from textual.widgets import Static

    model = ScriptedModel().add(call("run_shell_command", command="echo hi")).add(text("ran"))
    app = make_app(root, tmp_path, model, approval_mode="yolo")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "run")
        await wait_for(pilot, lambda: not screen.busy and len(model.requests) == 2)
        await pilot.press("ctrl+b")
        options = screen.query_one(HistoryPanel).query_one(OptionList)
        await wait_for(pilot, lambda: options.option_count == 1)
        await pilot.press("enter")  # straight from the filter: the details of the first match
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryDetailsScreen))
        approval = str(app.screen.query_one("#details-approval", Static).render())
        assert approval == "Approval: allow by approval mode yolo"


async def test_escape_in_the_panel_during_a_turn_closes_it_and_the_next_escape_cancels(root: Path,
                                                                                       tmp_path: Path) -> None:
    """The key bar says `esc Close history`: the first Esc does that and the turn goes on; the second cancels."""
    held = asyncio.Event()
    model = ScriptedModel().add(call("glob", pattern="*.txt")).add(text("half "), text("never"), wait=held)
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "go")
        await wait_for(pilot, lambda: len(model.requests) == 2)  # the glob ran; the answer is held mid-stream
        panel = screen.query_one(HistoryPanel)
        for into_list in (False, True):  # from the filter and from the list
            await pilot.press("ctrl+b")
            assert panel.display
            if into_list:
                await pilot.press("down")
                assert panel.option_list.has_focus
            assert "esc Close history" in screen.query_one(KeyBar).keys_text(140).plain
            await pilot.press("escape")
            await pilot.pause(0.3)  # long enough for a cancelled turn to end
            assert not panel.display
            assert screen.prompt.input.has_focus
            assert screen.busy  # the turn goes on
        await pilot.press("escape")  # the panel is closed: Esc cancels the turn
        await wait_for(pilot, lambda: not screen.busy)
        assert not held.is_set()


@pytest.mark.parametrize("width", [40, 120])
@pytest.mark.parametrize("presses", [1, 2, 3])
async def test_ctrl_b_before_the_session_is_ready_is_kept(root: Path, tmp_path: Path, presses: int,
                                                          width: int) -> None:
    """The panel is mounted once the session is attached; Ctrl+B pressed before that still opens (or closes) it."""
    import threading

    from gemini_tui.app.main import GeminiApp
    from tests.fakes.scripted_model import scripted_session

    release = threading.Event()
    home = tmp_path / "home"
    home.mkdir()

    def build() -> object:
        release.wait(10)
        return scripted_session(root, ScriptedModel(), home)

    app = GeminiApp(build, root)  # type: ignore[arg-type]
    async with app.run_test(size=(width, 24)) as pilot:
        screen = main_screen(pilot)
        assert not screen.ready
        for _ in range(presses):
            await pilot.press("ctrl+b")
        release.set()
        await wait_for(pilot, lambda: screen.history.panel is not None)
        await pilot.pause()
        panel = screen.query_one(HistoryPanel)
        assert panel.display is (presses % 2 == 1)
        assert screen.has_class("-history-full") is (presses % 2 == 1 and width < 80)
        if presses % 2 == 1:
            assert panel in (app.focused.ancestors_with_self if app.focused else [])
