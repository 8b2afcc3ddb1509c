"""A key in flight: when a typed key arrives while the screen in front has a layout or other widgets' redraws
pending (asked for before the key, when the typing had paused, so nothing held them), the frame that draws the
key draws it alone; what was pending is drawn right after, and the screen ends as it does with nobody typing.
Each case is a sequence of events generated from a seed; the screen's frames come late (as on a busy machine),
so the key always arrives with the bursts' requests pending."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.screen import Screen

import gemini_tui.app.keys_first as keys_first
from gemini_tui.app.screens.main_screen import MainScreen
from tests.app.app_driver import wait_for
from tests.app.test_group_calls import group_in_front
from tests.app.test_keys_first import TYPED, chat_and_queue, finish_scout, painting, prompt_row, publish, sequence
from tests.app.test_several_sessions import window
from tests.fakes.scripted_model import ScriptedModel


async def run(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int,
              typing: bool) -> tuple[list[str], list[int]]:
    """The chat and queue as painted at the end, and for each key (when typing) the layouts of the screen made
    between its arrival and the first frame that drew it."""
    monkeypatch.setattr(keys_first, "QUIET_S", 0.0)  # every key comes after a pause: nothing is held between
    layouts = [0]
    drawn: list[tuple[int, str]] = []  # each frame: layouts made before it, the prompt's row as painted
    stalled = [False]
    frame = Screen._on_timer_update

    def late_frame(self: Screen[Any]) -> None:  # a busy machine: the screen's frame comes after the key
        if stalled[0] and isinstance(self, MainScreen):
            self._update_timer.pause()
            return
        frame(self)

    monkeypatch.setattr(Screen, "_on_timer_update", late_frame)
    waits: list[int] = []
    home = tmp_path / ("typed" if typing else "quiet")
    home.mkdir()
    app = window(root, home, ScriptedModel())
    with painting(monkeypatch, layouts) as painted:
        async with app.run_test(size=(120, 40)) as pilot:
            screen, _ = await group_in_front(pilot, app)
            apply = painted.apply

            def recorded(update: Any, app: Any) -> None:
                apply(update, app)
                drawn.append((layouts[0], prompt_row(painted, screen)))

            monkeypatch.setattr(painted, "apply", recorded)
            await pilot.pause(0.3)
            for step, burst in enumerate(sequence(seed)):
                stalled[0] = True
                publish(screen, burst)
                await asyncio.sleep(0.01)  # the events reach the widgets, which ask for layouts and redraws
                before, seen = layouts[0], len(drawn)
                character = TYPED[step]
                if typing:
                    app.post_message(events.Key(character, character))
                    for _ in range(2000):  # the prompt has it (the frame that draws it has not come)
                        if screen.prompt.input.text.endswith(character):
                            break
                        await asyncio.sleep(0.001)
                stalled[0] = False
                screen.check_idle()
                if typing:
                    await wait_for(pilot, lambda seen=seen, character=character: any(
                        row.strip().endswith(character) for _, row in drawn[seen:]), timeout=10)
                    first = next(count for count, row in drawn[seen:] if row.strip().endswith(character))
                    waits.append(first - before)
                await asyncio.sleep(0.03)
            finish_scout(screen)
            await pilot.pause(0.5)
            await wait_for(pilot, lambda: not screen.keys_first.holding)
            await pilot.pause()
            shown = chat_and_queue(painted, screen)
    return shown, waits


@pytest.mark.parametrize("seed", [4, 5, 6])
async def test_a_key_that_comes_while_the_screen_has_a_layout_pending_is_drawn_first(
        root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    quiet, _ = await run(root, tmp_path, monkeypatch, seed, typing=False)
    typed, waits = await run(root, tmp_path, monkeypatch, seed, typing=True)
    assert waits == [0] * len(waits) and len(waits) == len(sequence(seed))  # no key's frame came after a layout
    assert typed == quiet  # what waited for the key was drawn after it: the screen ends as with nobody typing
    assert any("*0" in line for line in typed)


@pytest.mark.parametrize("seed", [7, 8])
async def test_a_sessions_events_wait_while_a_key_is_in_flight_and_are_all_handled_after(
        root: Path, tmp_path: Path, seed: int) -> None:
    """The events pump of a session is work that can wait: while the foreground is held (a key on its way to the
    screen) it handles none, and once let go it handles every one, in order."""
    from gemini_tui.core.ground.foreground import FOREGROUND

    app = window(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(120, 40)) as pilot:
        screen, _ = await group_in_front(pilot, app)
        await pilot.pause(0.2)
        try:
            for burst in sequence(seed):
                FOREGROUND.hold(5.0)
                handled = dict(screen.queue.entries)
                publish(screen, burst)
                await asyncio.sleep(0.05)
                assert screen.queue.entries == handled  # nothing of the burst was handled while held
                FOREGROUND.let_go()
                await asyncio.sleep(0.05)
        finally:
            FOREGROUND.let_go()
        await pilot.pause(0.2)
        calls = {event.call.call_id for burst in sequence(seed) for event in burst if hasattr(event, "call")}
        assert calls and calls <= set(screen.queue.entries)  # every call of every burst reached the queue


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_a_typed_keys_frame_comes_without_waiting_for_the_screens_frame_timer(
        root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """The screen's periodic frame never comes here: each typed key (some with a burst of events pending) is drawn
    all the same, by the frame the key asks for once the screen has taken its redraw."""
    import random

    rng = random.Random(seed)
    layouts = [0]
    app = window(root, tmp_path, ScriptedModel())
    with painting(monkeypatch, layouts) as painted:
        async with app.run_test(size=(120, 40)) as pilot:
            screen, _ = await group_in_front(pilot, app)
            await pilot.pause(0.3)
            timer = screen._update_timer
            monkeypatch.setattr(timer, "resume", lambda: None)
            timer.pause()
            for step, burst in enumerate(sequence(seed)):
                if rng.random() < 0.5:
                    publish(screen, burst)
                await asyncio.sleep(rng.choice([0.0, 0.01, 0.05, 0.25]))
                character = TYPED[step]
                app.post_message(events.Key(character, character))
                for _ in range(500):  # not the pilot's waits: they draw a frame themselves
                    if prompt_row(painted, screen).strip().endswith(character):
                        break
                    await asyncio.sleep(0.01)
                assert prompt_row(painted, screen).strip().endswith(character), f"key {step} was not drawn"
