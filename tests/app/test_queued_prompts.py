"""Prompts sent while a turn runs are queued: shown, editable (Up), removable (Ctrl+C), sent when it ends."""

from __future__ import annotations

import asyncio
from pathlib import Path

from gemini_tui.core.ground.parts import TextPart
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes.scripted_model import ScriptedModel, text


def prompts_sent(model: ScriptedModel) -> list[str]:
    """The last user text of each request the model received."""
    sent = []
    for request in model.requests:
        user = [c for c in request.contents if c.role == "user"][-1]
        sent.append(" ".join(p.text for p in user.parts if isinstance(p, TextPart)))
    return sent


async def test_prompts_queued_during_a_turn_are_sent_in_order_when_it_ends(root: Path, tmp_path: Path) -> None:
    gate = asyncio.Event()
    model = ScriptedModel().add(text("Working "), text("done."), wait=gate).add(text("Second.")).add(text("Third."))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "first")
        await wait_for(pilot, lambda: screen.busy)
        await type_and_send(pilot, "second")
        await type_and_send(pilot, "third")
        assert screen.queued.prompts == ["second", "third"] and screen.queued.display
        shown = str(screen.queued.render())
        assert "second" in shown and "third" in shown and "sent when the turn ends" in shown
        assert len(model.requests) == 1
        gate.set()
        await wait_for(pilot, lambda: len(model.requests) == 3 and not screen.busy and not screen.queued.prompts)
        assert not screen.queued.display
    assert [p.split()[-1] for p in prompts_sent(model)] == ["first", "second", "third"]


async def test_up_edits_the_last_queued_prompt_and_ctrl_c_removes_one(root: Path, tmp_path: Path) -> None:
    gate = asyncio.Event()
    model = ScriptedModel().add(text("Working "), text("done."), wait=gate).add(text("Edited one."))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "first")
        await wait_for(pilot, lambda: screen.busy)
        await type_and_send(pilot, "keep me")
        await type_and_send(pilot, "drop me")
        await type_and_send(pilot, "fix me")
        await pilot.press("up")  # the prompt is empty: the last queued prompt comes back to edit
        assert screen.prompt.input.text == "fix me" and screen.queued.prompts == ["keep me", "drop me"]
        await pilot.press("ctrl+c")  # clears the prompt's text first
        app._last_interrupt = 0.0
        await pilot.press("ctrl+c")  # then removes the last queued prompt, the turn keeps running
        assert screen.queued.prompts == ["keep me"] and screen.busy
        gate.set()
        await wait_for(pilot, lambda: len(model.requests) == 2 and not screen.busy)
    assert prompts_sent(model)[-1].endswith("keep me")


async def test_esc_cancelling_the_turn_brings_the_queue_back_unsent(root: Path, tmp_path: Path) -> None:
    gate = asyncio.Event()
    model = ScriptedModel().add(text("Working "), text("never."), wait=gate)
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "first")
        await wait_for(pilot, lambda: screen.busy)
        await type_and_send(pilot, "later one")
        await type_and_send(pilot, "later two")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy)
        await pilot.pause(0.1)
        assert screen.queued.prompts == [] and screen.prompt.input.text == "later one\nlater two"
        assert len(model.requests) == 1
