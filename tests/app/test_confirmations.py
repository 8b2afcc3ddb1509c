"""Confirmations through the whole app: inline for commands, the diff modal for edits; files checked on disk."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.pilot import Pilot

from gemini_tui.app.screens.main_screen import MainScreen
from gemini_tui.app.typing_guard import GRACE_PERIOD
from gemini_tui.app.widgets.confirm_bar import ConfirmBar
from gemini_tui.core.ground.model_api import FunctionResponse
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes.scripted_model import ScriptedModel, call, text

GRACE = GRACE_PERIOD + 0.2  # past the quiet spell after which a confirmation takes keys


def last_response(model: ScriptedModel) -> FunctionResponse:
    parts = model.requests[-1].contents[-1].parts
    responses = [p for p in parts if isinstance(p, FunctionResponse)]
    assert responses, parts
    return responses[-1]


async def asked(pilot: Pilot[object], prompt: str) -> tuple[MainScreen, ConfirmBar]:
    """`prompt` sent, and its first confirmation on the bar, past the grace period (it takes keys now)."""
    await type_and_send(pilot, prompt)
    screen = main_screen(pilot)
    bar = screen.query_one(ConfirmBar)
    await wait_for(pilot, lambda: bar.request is not None)
    await pilot.pause(GRACE)
    return screen, bar


async def test_command_allowed_once_runs(root: Path, tmp_path: Path) -> None:
    model = ScriptedModel().add(call("run_shell_command", command="echo hi > out.txt")).add(text("Done."))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(110, 32)) as pilot:
        await type_and_send(pilot, "make a file")
        screen = main_screen(pilot)
        bar = screen.query_one(ConfirmBar)
        await wait_for(pilot, lambda: bar.request is not None)
        assert "echo hi > out.txt" in str(bar.body.render())
        # inside the grace period: ignored (a long one, so a loaded machine's slow step cannot end it first)
        bar.guard.grace = 60.0
        await pilot.press("y")
        assert bar.request is not None and not (root / "out.txt").exists()
        bar.guard.grace = GRACE_PERIOD
        await pilot.pause(GRACE)
        await pilot.press("y")
        await wait_for(pilot, lambda: not screen.busy)
    assert (root / "out.txt").read_text() == "hi\n"


async def test_command_rejected_with_reason_tells_the_model(root: Path, tmp_path: Path) -> None:
    model = ScriptedModel().add(call("run_shell_command", command="touch nope.txt")).add(text("OK."))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(110, 32)) as pilot:
        screen, bar = await asked(pilot, "touch it")
        await pilot.press("r")
        assert bar.reason.display and bar.reason.has_focus
        await pilot.press(*"not now")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not screen.busy)
    assert not (root / "nope.txt").exists()
    assert "not now" in str(last_response(model).response)


async def test_allow_for_session_skips_later_confirmations(root: Path, tmp_path: Path) -> None:
    model = (ScriptedModel().add(call("run_shell_command", command="touch one.txt")).add(text("1"))
             .add(call("run_shell_command", command="touch two.txt")).add(text("2")))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(110, 32)) as pilot:
        screen = main_screen(pilot)
        bar = screen.query_one(ConfirmBar)
        await type_and_send(pilot, "first")
        await wait_for(pilot, lambda: bar.request is not None)
        await pilot.pause(GRACE)
        await pilot.press("a")
        await wait_for(pilot, lambda: not screen.busy)
        await type_and_send(pilot, "second")
        await wait_for(pilot, lambda: (root / "two.txt").exists())
        await wait_for(pilot, lambda: not screen.busy)
        assert bar.request is None
    assert (root / "one.txt").exists()


async def test_pending_requests_queue_with_a_count(root: Path, tmp_path: Path) -> None:
    model = ScriptedModel().add(call("run_shell_command", command="echo a > a.txt"),
                                call("run_shell_command", command="echo b > b.txt")).add(text("ok"))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(110, 32)) as pilot:
        screen, bar = await asked(pilot, "two commands")
        first = bar.request
        await pilot.press("y")
        await wait_for(pilot, lambda: bar.request is not None and bar.request is not first)
        await pilot.pause(GRACE)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy)
    assert (root / "a.txt").exists() and not (root / "b.txt").exists()


async def test_escape_while_asking_cancels_the_turn(root: Path, tmp_path: Path) -> None:
    model = ScriptedModel().add(call("run_shell_command", command="echo x > x.txt")).add(text("never"))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(110, 32)) as pilot:
        await type_and_send(pilot, "go")
        screen = main_screen(pilot)
        bar = screen.query_one(ConfirmBar)
        await wait_for(pilot, lambda: bar.request is not None)
        screen.action_cancel_turn()
        await wait_for(pilot, lambda: not screen.busy)
        await asyncio.sleep(0)
        assert bar.request is None
    assert not (root / "x.txt").exists()


async def test_a_rejected_call_says_rejected_and_shows_the_reason_in_the_chat(root: Path, tmp_path: Path) -> None:
    model = ScriptedModel().add(call("run_shell_command", command="touch nope.txt")).add(text("OK."))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(110, 32)) as pilot:
        screen, _ = await asked(pilot, "touch it")
        await pilot.press("r", *"too risky", "enter")
        await wait_for(pilot, lambda: not screen.busy)
        header = next(iter(screen.chat.cards.values())).header_text().plain
    assert "rejected" in header and "cancelled" not in header  # the user's no, not a cancelled turn
    assert "too risky" in header
