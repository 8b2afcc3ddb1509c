"""A session behind the one in front keeps what its chat, tool-call queue and history panel are to show, and shows
it when it comes to the front: exactly what a session that was in front all along shows (generated event sequences:
streamed text and thoughts, notices, calls through their states with live output, subagent groups with their own
calls, turns ending), and no widget of those three is touched while it is hidden."""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import random
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from gemini_tui.app.screens.main_screen import MainScreen
from gemini_tui.app.widgets.answer import MarkdownText, ThoughtBlock
from gemini_tui.core.ground.events import (
    CallFinished,
    CallState,
    CallStateChanged,
    ContextUsed,
    Event,
    Notice,
    TextDelta,
    ThoughtDelta,
    ToolCallInfo,
    ToolOutputChunk,
    TurnEndReason,
    TurnFinished,
    TurnStarted,
)
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from tests.app.app_driver import wait_for
from tests.app.test_several_sessions import front, opened, window
from tests.fakes.scripted_model import ScriptedModel

WORDS = ["the", "scheduler", "**runs**", "`glob`", "calls\n\n", "- one\n", "# Head\n", "together;", "edits", "alone."]
STEPS = ["text", "thought", "notice", "call", "agent", "child", "advance", "advance", "advance", "output", "output"]
NEXT = {CallState.validating: CallState.scheduled, CallState.scheduled: CallState.executing}


class Script:
    """One generated sequence of a session's events, as the core publishes them (no start times, so no clock)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.events: list[Event] = []
        self.live: dict[str, ToolCallInfo] = {}  # calls not finished yet
        self.agents: list[str] = []  # running invoke_agent calls
        self.count = 0

    def build(self, turns: int, steps: int, *, last_ends: bool = True) -> list[Event]:
        """`turns` turns of `steps` steps each; the last one stopped half-way unless `last_ends`. The last event
        sets the context's share to 37%: once a session shows it, every event was handled."""
        for turn in range(turns):
            self.events.append(TurnStarted(f"p{turn}", f"prompt {turn}"))
            for _ in range(steps):
                self.step(self.rng.choice(STEPS))
            if turn == turns - 1 and not last_ends:
                break
            while self.live:
                self.advance(self.rng.choice(list(self.live)))
            reason = self.rng.choice([TurnEndReason.completed, TurnEndReason.completed, TurnEndReason.error])
            self.events.append(TurnFinished(f"p{turn}", reason, "it broke" if reason is TurnEndReason.error else ""))
        self.events.append(ContextUsed(37, 100))
        return self.events

    def new_call(self, name: str, args: dict[str, Any], state: CallState, parent: str = "") -> None:
        self.count += 1
        call_id = f"c{self.count}"
        agent = f"scout-{parent}" if parent else ""
        info = ToolCallInfo(call_id, name, args, state, str(next(iter(args.values()))), name.title(), agent=agent,
                            parent_call_id=parent)
        self.live[call_id] = info
        if name == "invoke_agent":
            self.agents.append(call_id)
        self.events.append(CallStateChanged(info))

    def step(self, kind: str) -> None:
        rng = self.rng
        if kind == "text":
            self.events.append(TextDelta(" ".join(rng.choices(WORDS, k=rng.randint(1, 4)))))
        elif kind == "thought":
            self.events.append(ThoughtDelta(" ".join(rng.choices(WORDS, k=rng.randint(1, 3)))))
        elif kind == "notice":
            self.events.append(Notice(f"notice {len(self.events)}", rng.choice(["info", "warning"])))
        elif kind == "call":
            self.new_call("read_file", {"path": f"f{self.count}.py"}, CallState.validating)
        elif kind == "agent":
            self.new_call("invoke_agent", {"agent_name": f"scout{self.count}", "prompt": "look"}, CallState.executing)
        elif kind == "child" and (running := [a for a in self.agents if a in self.live]):
            self.new_call("glob", {"pattern": f"*{self.count}.md"}, CallState.validating, rng.choice(running))
        elif kind == "advance" and self.live:
            self.advance(rng.choice(list(self.live)))
        elif kind == "output" and self.live:
            call_id = rng.choice(list(self.live))
            self.events.append(ToolOutputChunk(call_id, f"line {len(self.events)}\n"))

    def advance(self, call_id: str) -> None:
        info = self.live[call_id]
        if info.name == "invoke_agent" and any(c.parent_call_id == call_id for c in self.live.values()):
            child = next(c for c in self.live.values() if c.parent_call_id == call_id)
            self.advance(child.call_id)  # an agent ends after its calls
            return
        if info.state in NEXT:
            info = self.live[call_id] = dataclasses.replace(info, state=NEXT[info.state])
            self.events.append(CallStateChanged(info))
            return
        failed = self.rng.random() < 0.25
        ended = dataclasses.replace(info, state=CallState.error if failed else CallState.success)
        error = ToolError(ToolErrorKind.execution_failed, f"{call_id} failed") if failed else None
        self.events.append(CallFinished(ended, ToolResult(f"{call_id} done", f"{call_id} done", error),
                                        10 * len(self.events)))
        del self.live[call_id]


def settled(screen: MainScreen) -> bool:
    """Every event of a script handled (its last one sets this share)."""
    return screen.status.context_percent == 37


def plain(value: object) -> str:
    if isinstance(value, Text | Content):
        return value.plain
    return str(value)


def chat_shown(screen: MainScreen) -> list[str]:
    """The chat as its widgets hold it, in order: each line its kind, classes, whether shown, and its text."""
    lines: list[str] = []

    def walk(widget: Widget) -> None:
        for child in widget.children:
            mark = f"{type(child).__name__} {sorted(child.classes)} {child.display}"
            if isinstance(child, ThoughtBlock):
                lines.append(f"{mark} {child.title}: {child.body.text}")
            elif isinstance(child, MarkdownText):
                lines.append(f"{mark} {child.text}")
            elif "welcome" not in child.classes:
                lines.append(f"{mark} {plain(child.content)}" if isinstance(child, Static) else mark)
                walk(child)

    walk(screen.chat)
    return lines


def queue_shown(screen: MainScreen) -> tuple[bool, str]:
    """Whether the queue shows, and what (a queue put aside keeps its last lines, unseen)."""
    return screen.queue.display, plain(screen.queue.content) if screen.queue.display else ""


def history_shown(screen: MainScreen) -> list[str]:
    panel = screen.history.panel
    assert panel is not None
    options = panel.option_list
    rows = [plain(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
    return [*rows, plain(panel.query_one("#history-count", Static).content)]


def shown(screen: MainScreen) -> tuple[Any, ...]:
    return chat_shown(screen), queue_shown(screen), history_shown(screen)


async def two_sessions(pilot: Any, app: Any) -> tuple[MainScreen, MainScreen]:
    """(hidden, in front): the first session, and a second opened over it; both built, their panels mounted."""
    hidden = front(app)
    await wait_for(pilot, lambda: hidden.ready)
    app.open_session()
    visible = await opened(pilot, app, 2)
    await wait_for(pilot, lambda: hidden.history.panel is not None and visible.history.panel is not None)
    await pilot.pause(0.3)
    return hidden, visible


@pytest.mark.parametrize(("seed", "last_ends"), [(seed, seed % 2 == 0) for seed in range(6)])
async def test_a_hidden_session_shows_what_an_always_visible_one_shows(root: Path, tmp_path: Path,
                                                                        seed: int, last_ends: bool) -> None:
    events = Script(seed).build(turns=2, steps=40, last_ends=last_ends)
    app = window(root, tmp_path, ScriptedModel(), ScriptedModel())
    async with app.run_test(size=(120, 40)) as pilot:
        hidden, visible = await two_sessions(pilot, app)
        pace = random.Random(seed)
        for event in events:  # the same events to both, the one in front drawing them as they come
            if isinstance(event, TurnStarted):  # as a prompt sent starts its turn in the chat first
                await wait_for(pilot, lambda: not hidden.status.busy and not visible.status.busy)  # the last ended
                await hidden.chat.start_turn(event.prompt)
                await visible.chat.start_turn(event.prompt)
            hidden.session.bus.publish(event)
            visible.session.bus.publish(event)
            if pace.random() < 0.3:
                await pilot.pause(pace.choice([0, 0.01, 0.2]))
        await wait_for(pilot, lambda: settled(visible) and settled(hidden))
        await pilot.pause(0.4)  # the group's progress is redrawn at most every 0.15 s
        expected = shown(visible)
        assert expected[0] and expected[2][:-1], "the sequence drew nothing"
        assert expected[1][0] is not last_ends  # a turn cut short still shows its queue
        await app.sessions.show(hidden)
        # drawn within moments, more of them on a loaded machine: waited for, then compared part by part
        with contextlib.suppress(AssertionError):
            await wait_for(pilot, lambda: shown(hidden) == expected, timeout=10)
        got = shown(hidden)
        assert got[0] == expected[0]
        assert got[1] == expected[1]
        assert got[2] == expected[2]


async def test_a_hidden_session_updates_no_widget_of_its_chat_queue_and_history(
        root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events = Script(7).build(turns=2, steps=40, last_ends=False)
    app = window(root, tmp_path, ScriptedModel(), ScriptedModel())
    async with app.run_test(size=(120, 40)) as pilot:
        hidden, _visible = await two_sessions(pilot, app)
        panel = hidden.history.panel
        views = (hidden.chat, hidden.queue, panel)
        touched: list[str] = []

        def counted(name: str) -> Any:
            original = getattr(Widget, name)

            def method(self: Widget, *args: Any, **kwargs: Any) -> Any:
                node: Any = self
                while node is not None and node not in views:
                    node = node._parent
                if node is not None:
                    touched.append(f"{name} {type(self).__name__}")
                return original(self, *args, **kwargs)

            return method

        for name in ("refresh", "mount", "remove_children"):
            monkeypatch.setattr(Widget, name, counted(name))
        for event in events:
            if isinstance(event, TurnStarted):
                await wait_for(pilot, lambda: not hidden.status.busy)
                await hidden.chat.start_turn(event.prompt)
            hidden.session.bus.publish(event)
        await wait_for(pilot, lambda: settled(hidden))
        await pilot.pause(1.2)  # the chat's and queue's clocks tick twice meanwhile
        assert touched == []
        assert hidden.chat.held.kept  # nothing lost: it is all kept
        await app.sessions.show(hidden)
        await wait_for(pilot, lambda: not hidden.chat.held.kept and len(hidden.chat.cards) > 0)
        assert touched  # shown now: drawn


async def test_in_front_a_group_header_is_redrawn_a_few_times_a_second_not_per_event(
        root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A burst of 60 events of one agent's calls: its group's header in the chat and the queue's lines are drawn
    at least 0.12 s apart (not once per event), and end on the last state."""
    import time

    from gemini_tui.app.widgets.chat import AgentCard, ChatPane
    from gemini_tui.app.widgets.queue import ToolQueue

    # the running clocks' ticks redraw on their own every 0.5 s: not what is measured here
    monkeypatch.setattr(ChatPane, "_tick_running", lambda self: None)
    monkeypatch.setattr(ToolQueue, "_tick", lambda self: None)
    app = window(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(120, 40)) as pilot:
        screen = front(app)
        await wait_for(pilot, lambda: screen.ready)
        drawn: dict[str, list[float]] = {"refresh_header": [], "update": []}
        for cls, name in ((AgentCard, "refresh_header"), (ToolQueue, "update")):
            original = getattr(cls, name)
            monkeypatch.setattr(cls, name, lambda self, *args, _o=original, _n=name, **kwargs: (
                drawn[_n].append(time.monotonic()), _o(self, *args, **kwargs))[1])
        bus = screen.session.bus
        bus.publish(TurnStarted("p1", "go"))
        agent = ToolCallInfo("a", "invoke_agent", {"agent_name": "scout", "prompt": "look"}, CallState.executing)
        bus.publish(CallStateChanged(agent))
        await wait_for(pilot, lambda: "a" in screen.chat.cards and drawn["update"])
        await pilot.pause(0.2)
        for times in drawn.values():
            times.clear()
        for n in range(20):
            child = ToolCallInfo(f"g{n}", "glob", {"pattern": f"*{n}"}, CallState.scheduled, f"*{n}", "Glob",
                                 agent="scout", parent_call_id="a")
            bus.publish(CallStateChanged(child))
            bus.publish(CallStateChanged(dataclasses.replace(child, state=CallState.executing)))
            bus.publish(CallFinished(dataclasses.replace(child, state=CallState.success),
                                     ToolResult("ok", "ok"), 5))
        await wait_for(pilot, lambda: len(screen.calls) == 21 and screen.calls.children("a")[-1].result is not None)
        await pilot.pause(0.4)
        assert "20 calls: 20 done" in plain(screen.chat.cards["a"].header.content)
        assert "20 calls: 20 done" in plain(screen.queue.content)
        for name, times in drawn.items():
            gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
            assert times and min(gaps, default=1.0) >= 0.12, (name, len(times), gaps)


@pytest.mark.parametrize("burst", [8, 30])
async def test_in_front_a_burst_of_an_unfolded_groups_new_cards_is_mounted_in_a_few_batches_not_one_by_one(
        root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, burst: int) -> None:
    """`burst` calls of one agent arriving together (each through its states) once the user unfolded its group
    into cards: its cards are mounted in a few batches (each mount lays the screen out again), all there in the
    end, in order, each showing its last state."""
    import time

    from gemini_tui.app.widgets.chat import AgentCard
    from gemini_tui.app.widgets.redraws import EVERY_S

    app = window(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(120, 40)) as pilot:
        screen = front(app)
        await wait_for(pilot, lambda: screen.ready)
        bus = screen.session.bus
        bus.publish(TurnStarted("p1", "go"))
        agent = ToolCallInfo("a", "invoke_agent", {"agent_name": "scout", "prompt": "look"}, CallState.executing)
        bus.publish(CallStateChanged(agent))
        await wait_for(pilot, lambda: "a" in screen.chat.cards)
        group = screen.chat.cards["a"]
        assert isinstance(group, AgentCard)
        await group.unfold()
        await pilot.pause(0.2)
        mounts: list[int] = []
        original = Widget.mount
        monkeypatch.setattr(Widget, "mount", lambda self, *widgets, **kwargs: (
            mounts.append(len(widgets)) if self is group.calls else None, original(self, *widgets, **kwargs))[1])
        began = time.monotonic()
        for n in range(burst):
            child = ToolCallInfo(f"g{n}", "glob", {"pattern": f"*{n}"}, CallState.scheduled, f"*{n}", "Glob",
                                 agent="scout", parent_call_id="a")
            bus.publish(CallStateChanged(child))
            bus.publish(CallStateChanged(dataclasses.replace(child, state=CallState.executing)))
            bus.publish(CallFinished(dataclasses.replace(child, state=CallState.success), ToolResult("ok", "ok"), 5))
        await wait_for(pilot, lambda: len(screen.calls) == burst + 1
                       and screen.calls.children("a")[-1].result is not None)
        took = time.monotonic() - began  # handled in slices: under load the burst takes a while
        await pilot.pause(0.4)
        cards = list(group.calls.children)
        assert [card.record.call_id for card in cards] == [f"g{n}" for n in range(burst)]  # type: ignore[attr-defined]
        assert all("-success" in card.classes and "*" in plain(card.header.content)  # type: ignore[attr-defined]
                   for card in cards)
        assert sum(mounts) == burst
        assert len(mounts) <= 2 + took / EVERY_S, (mounts, took)  # once per interval, not once per card
