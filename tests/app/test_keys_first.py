"""Keys first: while the user types into the prompt, what else changes on the screen in front (a subagent group's
calls, the queue, notices) waits, so that a key's frame draws the prompt without laying the screen out; when the
typing pauses (or another key comes), everything held is drawn, and the screen then shows what it shows when
nobody typed. Each case is a sequence of events generated from a seed, run with and without typing."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.segment import ControlType
from textual import events
from textual._compositor import CompositorUpdate
from textual.app import App
from textual.screen import Screen

import gemini_tui.app.keys_first as keys_first
from gemini_tui.app.screens.main_screen import MainScreen
from gemini_tui.core.ground.events import CallState, CallStateChanged, Event, Notice, ToolCallInfo
from tests.app.app_driver import wait_for
from tests.app.test_group_calls import child, finish, group_in_front
from tests.app.test_several_sessions import window
from tests.fakes.scripted_model import ScriptedModel

STEPS = 10
TYPED = "abcdefghijklmnopqrstuvwxyz"


@dataclasses.dataclass
class Ends:
    """A call ends (its CallFinished), in `state`."""

    call: ToolCallInfo
    state: CallState


def sequence(seed: int) -> list[list[Event | Ends]]:
    """STEPS bursts of events from one subagent group: its calls appear, run and end (some fail), with notices
    between; by the last burst every call has ended (the final screen holds no running clock)."""
    rng = random.Random(seed)
    bursts: list[list[Event | Ends]] = [[] for _ in range(STEPS)]
    for n in range(rng.randint(4, 9)):
        info = child(n)
        start = rng.randrange(STEPS - 2)
        end = rng.randrange(start + 1, STEPS)
        bursts[start].append(CallStateChanged(info))
        if rng.random() < 0.6:
            running = dataclasses.replace(info, state=CallState.executing)
            bursts[rng.randrange(start, end)].append(CallStateChanged(running))
        bursts[end].append(Ends(info, CallState.error if rng.random() < 0.25 else CallState.success))
    for _ in range(rng.randint(1, 3)):
        bursts[rng.randrange(STEPS)].append(Notice(f"notice {rng.randrange(1000)}", "info"))
    return bursts


def publish(screen: MainScreen, burst: list[Event | Ends]) -> None:
    for event in burst:
        if isinstance(event, Ends):
            finish(screen, event.call, event.state)
        else:
            screen.session.bus.publish(event)


class Painted:
    """The terminal as the app paints it: each update the screen in front sends, applied to rows of cells."""

    def __init__(self, width: int, height: int) -> None:
        self.rows = [[" "] * width for _ in range(height)]
        self.styles: list[list[object]] = [[None] * width for _ in range(height)]
        self.frames = 0

    def apply(self, update: CompositorUpdate, app: App[Any]) -> None:
        self.frames += 1
        x = y = 0
        for segment in update.__rich_console__(app.console, app.console.options):  # type: ignore[attr-defined]
            if segment.control:
                for code in segment.control:
                    if code[0] is ControlType.CURSOR_MOVE_TO:
                        x, y = int(code[1]), int(code[2])  # type: ignore[misc]
                continue
            if segment.text == "\n":
                continue
            for character in segment.text:
                for cell in range(cell_len(character)):  # a wide character's second cell holds nothing
                    if 0 <= y < len(self.rows) and 0 <= x + cell < len(self.rows[y]):
                        self.rows[y][x + cell] = "" if cell else character
                        self.styles[y][x + cell] = segment.style
                x += cell_len(character)

    def lines(self, top: int, bottom: int) -> list[str]:
        return ["".join(row).rstrip() for row in self.rows[top:bottom]]

    def cells(self, top: int, bottom: int, left: int, right: int) -> list[list[tuple[str, object]]]:
        """Each cell's character and style, row by row."""
        return [list(zip(row[left:right], styles[left:right], strict=True))
                for row, styles in zip(self.rows[top:bottom], self.styles[top:bottom], strict=True)]


@contextmanager
def painting(monkeypatch: pytest.MonkeyPatch, layouts: list[int]) -> Iterator[Painted]:
    """What the screen in front paints, and (in `layouts`) how many layouts of it came before each frame."""
    painted = Painted(120, 40)
    display, layout = App._display, Screen._refresh_layout

    def recorded_display(self: App[Any], screen: Screen[Any], renderable: Any) -> None:
        if isinstance(renderable, CompositorUpdate) and screen is self.screen:
            painted.apply(renderable, self)
        display(self, screen, renderable)  # type: ignore[arg-type]  # what Textual passes, passed on

    def counted_layout(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        if isinstance(self, MainScreen):
            layouts[0] += 1
        layout(self, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(App, "_display", recorded_display)
        patch.setattr(Screen, "_refresh_layout", counted_layout)
        yield painted


def finish_scout(screen: MainScreen) -> None:
    """The group's agent ends: its running call finishes."""
    finish(screen, ToolCallInfo("a", "invoke_agent", {"agent_name": "scout", "prompt": "look"}, CallState.executing))


def chat_and_queue(painted: Painted, screen: MainScreen) -> list[str]:
    """The chat and the queue as painted."""
    chat, queue = screen.chat.region, screen.queue.region
    return painted.lines(chat.y, max(chat.bottom, queue.bottom))


def prompt_row(painted: Painted, screen: MainScreen) -> str:
    region = screen.prompt.input.content_region
    return "".join(line[region.x:region.right] for line in painted.lines(region.y, region.bottom))


async def run(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int,
              typing: bool) -> tuple[list[str], list[tuple[int, int]]]:
    """The chat and queue as painted at the end, and for each key (when typing) the layouts of the screen laid out
    between its arrival and the frame that first drew it, with those made by a release of held redraws."""
    layouts = [0]
    waits: list[tuple[int, int]] = []
    home = tmp_path / ("typed" if typing else "quiet")
    home.mkdir()
    app = window(root, home, ScriptedModel())
    with painting(monkeypatch, layouts) as painted:
        async with app.run_test(size=(120, 40)) as pilot:
            screen, _ = await group_in_front(pilot, app)
            await pilot.pause(0.3)
            if typing:
                await pilot.press("z")  # typing has begun: from here on what else changes waits
            for step, burst in enumerate(sequence(seed)):
                publish(screen, burst)
                await asyncio.sleep(0.01)  # the events reach the widgets, which ask for their layouts
                if typing:
                    character = TYPED[step]
                    before, released = layouts[0], screen.keys_first.releases
                    frame = painted.frames
                    app.post_message(events.Key(character, character))
                    await wait_for(pilot, lambda frame=frame, character=character: painted.frames > frame and
                                   prompt_row(painted, screen).strip().endswith(character), timeout=10)
                    waits.append((layouts[0] - before, screen.keys_first.releases - released))
                else:
                    await asyncio.sleep(0.02)
            finish_scout(screen)
            if typing:
                await pilot.press("ctrl+end")  # not typing: what was held is drawn now
                await wait_for(pilot, lambda: not screen.keys_first.holding)
            await pilot.pause(0.5)
            if not typing:
                # the reference is the screen as a full redraw paints it: with nobody typing, Textual's own partial
                # repaint on a loaded machine has left a moved row unpainted (the layout the same), which is not
                # what this compares
                screen.refresh()
            await pilot.pause()
            shown = chat_and_queue(painted, screen)
    return shown, waits


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_a_keys_frame_lays_nothing_out_and_what_waited_is_all_drawn_after(
        root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    # no pause in the typing here lets go of what is held (a loaded machine may stall between two keys)
    monkeypatch.setattr(keys_first, "QUIET_S", 30.0)
    monkeypatch.setattr(keys_first, "MAX_HOLD_S", 30.0)
    quiet, _ = await run(root, tmp_path, monkeypatch, seed, typing=False)
    typed, waits = await run(root, tmp_path, monkeypatch, seed, typing=True)
    assert len(waits) == STEPS
    assert waits == [(0, 0)] * STEPS  # no key's frame waited for a layout of the screen
    assert typed == quiet  # nothing held was lost: the chat and queue end as they do with nobody typing
    assert any("notice" in line for line in typed) and any("*0" in line for line in typed)


async def test_typing_that_goes_on_still_shows_what_changed_and_a_pause_shows_the_rest(
        root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A call published a second before the typing stops is on the screen before it stops (what is held is
    drawn every `MAX_HOLD_S`, right after a key's frame); the last one shows once the typing pauses."""
    layouts = [0]
    app = window(root, tmp_path, ScriptedModel())
    with painting(monkeypatch, layouts) as painted:
        async with app.run_test(size=(120, 40)) as pilot:
            screen, _ = await group_in_front(pilot, app)
            await pilot.pause(0.3)
            loop = asyncio.get_running_loop()
            published: list[tuple[float, str]] = []
            started = loop.time()
            n = 0
            while loop.time() - started < 2.0:
                publish(screen, [Ends(child(n), CallState.success)])
                published.append((loop.time(), f"*{n}"))
                n += 1
                for _ in range(3):
                    character = TYPED[n % len(TYPED)]
                    frame = painted.frames
                    app.post_message(events.Key(character, character))
                    await wait_for(pilot, lambda frame=frame: painted.frames > frame, timeout=10)
                    await asyncio.sleep(0.03)
            stopped = loop.time()
            chat = screen.chat.region
            while_typing = "\n".join(painted.lines(chat.y, chat.bottom))
            assert screen.keys_first.releases >= 1
            for at, target in published:
                if stopped - at >= 1.0:
                    assert f"Glob  {target}" in while_typing
            last = published[-1][1]
            await wait_for(pilot, lambda: f"Glob  {last}" in "\n".join(painted.lines(chat.y, chat.bottom)))


@pytest.mark.parametrize(("spacing_s", "running"), [(0.03, 1), (0.06, 3), (0.1, 2)])
async def test_running_times_are_redrawn_with_what_else_waits_while_the_user_types(
        root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spacing_s: float, running: int) -> None:
    """The running cards' and the queue's periodic redraws (their times) wait while the user types, as other
    activity's redraws do: each one made meanwhile is made by a release of what waited, and there is at least one."""
    from gemini_tui.app.widgets.chat import AgentCard
    from gemini_tui.app.widgets.queue import ToolQueue

    redraws: list[tuple[float, bool]] = []  # when, and whether a release made it
    releasing = [False]
    release, header, lines = keys_first.KeysFirst.release, AgentCard.refresh_header, ToolQueue.refresh_lines

    def recorded_release(self: keys_first.KeysFirst) -> None:
        releasing[0] = True
        try:
            release(self)
        finally:
            releasing[0] = False

    def recorded(original: Any) -> Any:
        def redraw(self: Any) -> None:
            redraws.append((asyncio.get_running_loop().time(), releasing[0]))
            original(self)
        return redraw

    app = window(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(120, 40)) as pilot:
        screen, _ = await group_in_front(pilot, app)
        for n in range(running):
            screen.session.bus.publish(CallStateChanged(child(n, CallState.executing)))
        await wait_for(pilot, lambda: len(screen.queue.entries) == running + 1)
        await pilot.pause(0.3)
        monkeypatch.setattr(keys_first.KeysFirst, "release", recorded_release)
        monkeypatch.setattr(AgentCard, "refresh_header", recorded(header))
        monkeypatch.setattr(ToolQueue, "refresh_lines", recorded(lines))
        loop = asyncio.get_running_loop()
        started = loop.time()
        n = 0
        while loop.time() - started < 1.6:
            character = TYPED[n % len(TYPED)]
            n += 1
            app.post_message(events.Key(character, character))
            await asyncio.sleep(spacing_s)
        stopped = loop.time()
        typing = [inside for at, inside in redraws if started + keys_first.QUIET_S < at < stopped]
        assert typing and all(typing), f"{typing.count(False)} of {len(typing)} redraws came between releases"
        assert screen.keys_first.releases >= 1
