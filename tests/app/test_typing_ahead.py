"""Keys typed for the prompt never answer a confirmation: they stay in the prompt (inline bar and diff modal)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from gemini_tui.app.screens.diff_review import DiffReviewScreen
from gemini_tui.app.typing_guard import GRACE_PERIOD
from gemini_tui.app.widgets.confirm_bar import ConfirmBar
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.app.test_confirmations import GRACE
from tests.fakes.scripted_model import ScriptedModel, call, text

# every key a confirmation answers to, in words someone might be typing
TYPED = "yes A, and say no: can you add tests? aAyns"


async def type_slowly(pilot, keys: str, gap: float = 0.05, each: Callable[[], None] = lambda: None) -> None:
    for key in keys:
        await pilot.press({" ": "space", ",": "comma", ":": "colon", "?": "question_mark"}.get(key, key))
        each()
        await asyncio.sleep(gap)


async def type_through(pilot, shown: Callable[[], object], each: Callable[[], None] = lambda: None) -> str:
    """Types TYPED, and goes on typing it until the confirmation is shown (a cold process, a loaded machine: it
    may come after the first line is typed), then types it once more while it is shown; returns all it typed."""
    typed = TYPED
    await type_slowly(pilot, TYPED, each=each)
    while not shown() and len(typed) < 20 * len(TYPED):
        await type_slowly(pilot, TYPED, each=each)
        typed += TYPED
    assert shown(), "the confirmation should have appeared while typing"
    await type_slowly(pilot, TYPED, each=each)
    return typed + TYPED


async def test_typing_through_an_inline_confirmation_answers_nothing(root: Path, tmp_path: Path) -> None:
    model = ScriptedModel().add(call("run_shell_command", command="touch PWNED"), delay_s=0.3).add(text("ok"))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(110, 32)) as pilot:
        screen = main_screen(pilot)
        bar = screen.query_one(ConfirmBar)
        # a long quiet spell while typing: on a loaded machine one key can take longer than the real one
        bar.guard.grace = 60.0
        await type_and_send(pilot, "first")
        # the user goes on typing the next prompt; the confirmation appears in the middle of it
        typed = await type_through(pilot, lambda: bar.request is not None)
        assert not bar.listening and screen.prompt.input.has_focus
        assert screen.prompt.input.text == typed
        assert not (root / "PWNED").exists() and len(screen.session.grants) == 0
        bar.guard.grace = GRACE_PERIOD
        await pilot.pause(GRACE)  # typing stops: now it listens
        assert bar.listening and bar.has_focus
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy)
        assert screen.prompt.input.text == typed
    assert not (root / "PWNED").exists()


async def test_keys_re_arm_the_wait_after_it_listens(root: Path, tmp_path: Path) -> None:
    model = ScriptedModel().add(call("run_shell_command", command="touch PWNED")).add(text("ok"))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(110, 32)) as pilot:
        screen = main_screen(pilot)
        bar = screen.query_one(ConfirmBar)
        await type_and_send(pilot, "go")
        await wait_for(pilot, lambda: bar.listening)
        # "xylophone": x is no answer, so it re-arms the wait, and y right after it is text for the prompt
        await type_slowly(pilot, "xylophone", gap=0.02)
        assert bar.request is not None and not (root / "PWNED").exists()
        assert screen.prompt.input.text.endswith("xylophone")
        await pilot.pause(GRACE)
        await pilot.press("y")
        await wait_for(pilot, lambda: not screen.busy)
    assert (root / "PWNED").exists()


async def test_typing_into_the_diff_review_goes_to_the_prompt(root: Path, tmp_path: Path) -> None:
    model = (ScriptedModel().add(call("write_file", file_path=str(root / "a.txt"), content="new\n"), delay_s=0.3)
             .add(text("ok")))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(110, 32)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "write it")

        def patient() -> None:
            # a pilot's next key waits for the last one to be handled: a review built in a cold process (its
            # first diff, its styles) would look like the typist's quiet spell. Keys typed in one burst arrive
            # with their own times in a terminal (the typist's gaps count, see TypingGuard.key).
            if isinstance(app.screen, DiffReviewScreen):
                app.screen.guard.grace = 60.0

        typed = await type_through(pilot, lambda: isinstance(app.screen, DiffReviewScreen), each=patient)
        assert isinstance(app.screen, DiffReviewScreen), "typing should not have answered the review"
        assert screen.prompt.input.text == typed
        assert not (root / "a.txt").exists() and len(screen.session.grants) == 0
        assert not app.screen.rejected  # space and n did nothing either
        app.screen.guard.grace = GRACE_PERIOD
        await pilot.pause(GRACE)
        await pilot.press("y")
        await wait_for(pilot, lambda: not screen.busy)
        assert screen.prompt.input.text == typed
    assert (root / "a.txt").read_text() == "new\n"
