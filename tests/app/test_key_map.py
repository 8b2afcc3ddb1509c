"""One key map for every confirmation: each screen that asks (the inline confirmation, the diff review, the trust
question, the rewind and loop questions) is driven with every decision key, and each key must decide the same
there as app/decision_keys.py says; the moving keys (j/k, ]/[) decide nothing anywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.screen import Screen

from gemini_tui.app import decision_keys as keys
from gemini_tui.app.screens.diff_review import DiffReviewScreen
from gemini_tui.app.screens.loop_question import LoopQuestion
from gemini_tui.app.screens.picker import ConfirmScreen
from gemini_tui.app.screens.trust import TrustScreen
from gemini_tui.app.widgets.confirm_bar import ConfirmBar
from gemini_tui.core.approvals.trust import TrustLevel
from gemini_tui.core.ground.confirmation import ConfirmationOutcome, Decision, EditConfirmation
from gemini_tui.core.ground.display import FileDiff
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.app.test_confirmations import GRACE
from tests.fakes.scripted_model import ScriptedModel, call, text

ALLOWS = {"allow once", "allow for the session", "allow always", "allow every tool of the server"}
OUTCOMES = {  # what the inline confirmation and the diff review answer for each meaning
    "allow once": ConfirmationOutcome.proceed_once,
    "allow for the session": ConfirmationOutcome.proceed_always,
    "allow always": ConfirmationOutcome.proceed_always_and_save,
    "reject": ConfirmationOutcome.cancel,
}
NOTHING = object()  # the key did not answer


class Asking(App[None]):
    """One modal question; `answers` gets what it was dismissed with."""

    def __init__(self, modal: Screen[Any]) -> None:
        super().__init__()
        self.modal = modal
        self.answers: list[object] = []

    def on_mount(self) -> None:
        self.push_screen(self.modal, self.answers.append)


def modal_for(kind: str, tmp_path: Path) -> Screen[Any]:
    if kind == "diff review":
        path = str(tmp_path / "a.txt")
        return DiffReviewScreen(EditConfirmation("Confirm Edit: a.txt", path, FileDiff.between(path, "a\n", "b\n")),
                                grace_period=0)
    if kind == "trust question":
        return TrustScreen(tmp_path, ["tools.allowed"], grace=0)
    if kind == "rewind question":
        return ConfirmScreen("files and conversation back to prompt 1", "Rewind?")
    return LoopQuestion()


def meaning_of(kind: str, answer: object) -> str:
    """What a modal's answer means, in the key map's words."""
    if answer is NOTHING:
        return "nothing"
    if kind == "diff review":
        assert isinstance(answer, Decision)
        return next(m for m, o in OUTCOMES.items() if o is answer.outcome)
    if kind == "trust question":
        return "allow" if answer in (TrustLevel.TRUST_FOLDER, TrustLevel.TRUST_PARENT) else "reject"
    return "allow" if answer is True else "reject"


def agrees(expected: str, got: str, exact: bool) -> bool:
    if exact:
        return got == expected
    return got == ("allow" if expected in ALLOWS else "reject")


@pytest.mark.parametrize("kind", ["diff review", "trust question", "rewind question", "loop question"])
@pytest.mark.parametrize("key", list(keys.DECISIONS))
async def test_a_decision_key_means_the_same_on_every_modal_confirmation(kind: str, key: str,
                                                                         tmp_path: Path) -> None:
    app = Asking(modal_for(kind, tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause(0.3)
        modal = app.screen
        bound = any(key in b.key.split(",") for b in modal.BINDINGS)
        await pilot.press(key)
        await pilot.pause(0.2)
        answer = app.answers[0] if app.answers else NOTHING
        expected = keys.DECISIONS[key]
        if expected == "reject with a reason":
            if kind == "diff review":  # asks the reason, then rejects with it
                assert answer is NOTHING and modal.mode == "reason"
                await pilot.press(*"too big", "enter")
                await pilot.pause(0.2)
                assert app.answers and app.answers[0].outcome is ConfirmationOutcome.cancel
                assert "too big" in (app.answers[0].feedback or "")
            else:
                assert not bound and answer is NOTHING  # no reason to give here: r is not another meaning
            return
        if not bound:
            assert answer is NOTHING, (kind, key)  # a key a screen does not offer does nothing else either
            return
        got = meaning_of(kind, answer)
        assert agrees(expected, got, exact=kind == "diff review"), (kind, key, got)


@pytest.mark.parametrize("key", list(keys.DECISIONS))
async def test_a_decision_key_means_the_same_in_the_inline_confirmation(key: str, root: Path,
                                                                        tmp_path: Path) -> None:
    model = ScriptedModel().add(call("run_shell_command", command="echo hi")).add(text("ok"))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(110, 32)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "run it")
        bar = screen.query_one(ConfirmBar)
        await wait_for(pilot, lambda: bar.request is not None)
        request = bar.request
        assert request is not None
        await pilot.pause(GRACE)
        await pilot.press(key)
        await pilot.pause(0.1)
        expected = keys.DECISIONS[key]
        if expected == "reject with a reason":
            assert bar.reason.display and bar.reason.has_focus and not request.future.done()
            await pilot.press(*"too risky", "enter")
            await wait_for(pilot, lambda: request.future.done())
            decision = request.future.result()
            assert decision.outcome is ConfirmationOutcome.cancel and decision.feedback == "too risky"
        elif expected == "allow every tool of the server":  # offered only where an MCP tool asks
            assert not request.future.done() and bar.request is request
            return
        else:
            await wait_for(pilot, lambda: request.future.done())
            decision = request.future.result()
            assert decision.outcome is OUTCOMES[expected] and not decision.feedback, (key, decision)
        await wait_for(pilot, lambda: not screen.busy)


def test_moving_keys_decide_nothing_on_any_confirmation() -> None:
    decide = {"decide", "reject", "reject_now", "approve", "approve_always", "approve_saved", "back", "choose",
              "later", "answer"}
    for screen in (ConfirmBar, DiffReviewScreen, TrustScreen, ConfirmScreen, LoopQuestion):
        for binding in screen.BINDINGS:
            action = binding.action.split("(")[0]
            for key in binding.key.split(","):
                if key in keys.MOVES:
                    assert action not in decide, (screen.__name__, key, action)
                if key in keys.DECISIONS and key != keys.REJECT_ESC:
                    assert action in decide, (screen.__name__, key, action)  # never something else there
