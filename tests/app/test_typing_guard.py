"""The typing guard decides by when keys arrived, not by when the app got round to handling them."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from textual import events

from gemini_tui.app.typing_guard import GRACE_PERIOD, TypingGuard
from gemini_tui.app.widgets.confirm_bar import ConfirmBar
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.app.test_confirmations import GRACE
from tests.fakes.scripted_model import ScriptedModel, call, text


def decisions(arrivals: list[float], shown_at: float) -> list[bool]:
    """Each key's answer from a guard armed at `shown_at`, the keys arriving at `arrivals`."""
    guard = TypingGuard()
    guard.arm()
    guard.shown_at = shown_at
    return [guard.key(True, at) for at in arrivals]


def typed(seed: int) -> list[float]:
    rng = random.Random(seed)
    arrivals, now = [], 0.0
    for _ in range(rng.randint(2, 12)):
        now += rng.choice([0.05, 0.1, 0.2, GRACE_PERIOD + 0.3])  # typing, with the odd pause
        arrivals.append(now)
    return arrivals


@pytest.mark.parametrize("seed", range(40))
def test_a_key_answers_only_after_a_quiet_spell_in_the_typing(seed: int) -> None:
    arrivals = typed(seed)
    got = decisions(arrivals, shown_at=0.0)
    expected, last = [], 0.0
    for at in arrivals:
        allowed = at - last >= GRACE_PERIOD
        expected.append(allowed)
        if not allowed:
            last = at
    assert got == expected, arrivals


async def test_keys_typed_in_one_burst_but_handled_late_answer_nothing(root: Path, tmp_path: Path) -> None:
    """The app stalls (a loaded machine) while "xy" is typed in one go: handled a second apart, the "y" is
    still part of the typing, not an answer, because it arrived with the "x"."""
    model = ScriptedModel().add(call("run_shell_command", command="touch PWNED")).add(text("ok"))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(110, 32)) as pilot:
        screen = main_screen(pilot)
        bar = screen.query_one(ConfirmBar)
        await type_and_send(pilot, "go")
        await wait_for(pilot, lambda: bar.listening)
        await pilot.pause(GRACE)
        arrived = time.monotonic()
        for key in "xy":
            event = events.Key(key, key)
            event.time = arrived  # read from the terminal together
            app.post_message(event)
            await pilot.pause(GRACE)  # handled well after the quiet spell
        assert bar.request is not None and not (root / "PWNED").exists()
        assert screen.prompt.input.text.endswith("xy")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy)
    assert not (root / "PWNED").exists()
