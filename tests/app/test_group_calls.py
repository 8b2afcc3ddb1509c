"""A subagent's own calls in the chat are folded into one widget of lines (each drawn as its card's line): however
many calls a group makes, the screen in front gains no widget per call, a call whose line changes lays the screen
out only when its number of lines changes, and Enter or a click unfolds them into cards (a clicked call opens)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.widget import Widget

from gemini_tui.app.screens.main_screen import MainScreen
from gemini_tui.app.widgets.chat import AgentCard, GroupCalls
from gemini_tui.app.widgets.redraws import EVERY_S
from gemini_tui.core.ground.events import (
    CallFinished,
    CallState,
    CallStateChanged,
    ToolCallInfo,
    ToolOutputChunk,
    TurnStarted,
)
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from tests.app.app_driver import wait_for
from tests.app.test_hidden_session_updates import plain
from tests.app.test_several_sessions import front, window
from tests.fakes.scripted_model import ScriptedModel


def child(n: int, state: CallState = CallState.scheduled) -> ToolCallInfo:
    return ToolCallInfo(f"g{n}", "glob", {"pattern": f"*{n}"}, state, f"*{n}", "Glob", agent="scout",
                        parent_call_id="a")


async def group_in_front(pilot: Any, app: Any) -> tuple[MainScreen, AgentCard]:
    screen = front(app)
    await wait_for(pilot, lambda: screen.ready)
    screen.session.bus.publish(TurnStarted("p1", "go"))
    screen.session.bus.publish(CallStateChanged(ToolCallInfo("a", "invoke_agent", {"agent_name": "scout",
                                                                                   "prompt": "look"},
                                                             CallState.executing)))
    await wait_for(pilot, lambda: "a" in screen.chat.cards)
    group = screen.chat.cards["a"]
    assert isinstance(group, AgentCard)
    return screen, group


def finish(screen: MainScreen, info: ToolCallInfo, state: CallState = CallState.success) -> None:
    error = ToolError(ToolErrorKind.execution_failed, "no such folder\nmore") if state is CallState.error else None
    screen.session.bus.publish(CallFinished(dataclasses.replace(info, state=state),
                                            ToolResult("ok", f"shown {info.call_id}", error=error), 5))


@contextmanager
def layout_requests(monkeypatch: pytest.MonkeyPatch, inside: Widget) -> Iterator[list[str]]:
    """The widgets under `inside` (itself included) that ask for a layout of their screen, one entry per ask."""
    asked: list[str] = []
    original = Widget.refresh

    def refresh(self: Widget, *regions: Any, layout: bool = False, **kwargs: Any) -> Any:
        if layout and inside in self.ancestors_with_self:
            asked.append(type(self).__name__)
        return original(self, *regions, layout=layout, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(Widget, "refresh", refresh)
        yield asked


@pytest.mark.parametrize("burst", [8, 30])
async def test_a_burst_of_a_groups_calls_adds_lines_to_one_widget_not_widgets_to_the_screen(
        root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, burst: int) -> None:
    app = window(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(120, 40)) as pilot:
        screen, group = await group_in_front(pilot, app)
        await pilot.pause(0.3)
        widgets = len(list(screen.walk_children()))
        with layout_requests(monkeypatch, group) as asked:
            began = time.monotonic()
            for n in range(burst):
                info = child(n)
                screen.session.bus.publish(CallStateChanged(info))
                screen.session.bus.publish(CallStateChanged(dataclasses.replace(info, state=CallState.executing)))
                finish(screen, info)
            await wait_for(pilot, lambda: len(screen.calls) == burst + 1
                           and screen.calls.children("a")[-1].result is not None)
            took = time.monotonic() - began  # the burst is handled in slices: under load it takes a while
            await pilot.pause(0.4)
        assert group.folded and isinstance(group.calls, GroupCalls)
        lines = plain(group.calls.content).splitlines()
        assert lines == [f"▌ ✓ Glob  *{n}  done 5ms  ▸" for n in range(burst)]
        assert group.calls.rows == [f"g{n}" for n in range(burst)]
        assert f"{burst} calls: {burst} done" in plain(group.header.content)
        assert len(list(screen.walk_children())) == widgets  # not one widget (or two) per call
        # its lines grew at most once per redraw interval, and not once per call (a redraw asks at most thrice:
        # its lines, its header, its ending): the first redraw at once, one per interval the burst lasted, and the
        # last interval's own after it (a burst quicker than an interval is two redraws)
        assert len(asked) <= 3 * (2 + took / EVERY_S), (asked, took)


# a call's move, and whether its lines' count changes with it (only then is the screen laid out again)
MOVES = [
    ("scheduled, then running", CallState.executing, "", False),
    ("running, then done", CallState.success, "", False),
    ("running with output, then done", CallState.success, "12 files so far", True),
    ("running, then failed with its error", CallState.error, "", True),
]


@pytest.mark.parametrize(("move", "state", "output", "relayout"), MOVES, ids=[m[0] for m in MOVES])
async def test_a_folded_call_that_changes_lays_the_screen_out_only_when_its_number_of_lines_does(
        root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, move: str, state: CallState, output: str,
        relayout: bool) -> None:
    app = window(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(120, 40)) as pilot:
        screen, group = await group_in_front(pilot, app)
        bus = screen.session.bus
        calls = [child(n) for n in range(3)]
        before = CallState.scheduled if state is CallState.executing else CallState.executing
        for info in calls:
            bus.publish(CallStateChanged(dataclasses.replace(info, state=before)))
        if output:
            bus.publish(ToolOutputChunk("g1", output + "\n"))
        await wait_for(pilot, lambda: len(screen.calls) == 4 and screen.calls.children("a")[1].call.state is before
                       and (not output or output in plain(group.calls.content)))
        await pilot.pause(0.4)
        shown = plain(group.calls.content)
        with layout_requests(monkeypatch, group) as asked:
            if state is CallState.executing:
                bus.publish(CallStateChanged(dataclasses.replace(calls[1], state=state)))
            else:
                finish(screen, calls[1], state)
            await wait_for(pilot, lambda: plain(group.calls.content) != shown)
            await pilot.pause(0.4)
        lines = plain(group.calls.content).splitlines()
        assert any(line.startswith("▌ ") and "*1  " in line for line in lines)
        if output:  # a finished call's last output is no longer drawn
            assert output not in plain(group.calls.content)
        if state is CallState.error:
            assert "▌   └ no such folder" in lines
        assert bool(asked) is relayout, (move, asked)


async def test_a_click_on_a_folded_call_unfolds_the_group_and_opens_that_call(
        root: Path, tmp_path: Path) -> None:
    app = window(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(120, 40)) as pilot:
        screen, group = await group_in_front(pilot, app)
        for n in range(3):
            screen.session.bus.publish(CallStateChanged(child(n)))
            finish(screen, child(n))
        await wait_for(pilot, lambda: len(group.calls.rows) == 3 and "3 done" in plain(group.header.content))
        await pilot.pause(0.3)
        assert await pilot.click(GroupCalls, offset=(8, 1))  # the second call's line
        cards = [screen.chat.cards[f"g{n}"] for n in range(3)]
        await wait_for(pilot, lambda: not group.folded and all(card.is_mounted for card in cards))
        await wait_for(pilot, lambda: cards[1].expanded and cards[1].has_focus)
        assert list(group.calls.children) == cards  # in their order, each its own card now
        assert not cards[0].expanded and not cards[2].expanded
        assert "shown g1" in plain(cards[1].query(".call-body").first().query("*").last().render())
