"""Keys go only to the session in front: while a session behind it waits on a question of each kind (an inline
command confirmation, a diff review, an ask_user question, a suspected loop's keep-going question), every key any
confirmation answers to is pressed on the session in front, and none of them answers, closes or shows the one
behind; afterwards the question is still there to be answered from the "waiting on you" list. The keys come from
the confirmations' own bindings and key map, so a key added to a confirmation is tried here too."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gemini_tui.app import decision_keys as keys
from gemini_tui.app.screens.ask_user import AskUserScreen
from gemini_tui.app.screens.diff_review import DiffReviewScreen
from gemini_tui.app.screens.loop_question import LoopQuestion
from gemini_tui.app.screens.picker import PickerScreen
from gemini_tui.app.widgets.answer import AnswerBlock
from gemini_tui.app.widgets.confirm_bar import ConfirmBar
from gemini_tui.app.widgets.session_tabs import SessionTabs
from tests.app.app_driver import wait_for
from tests.app.test_confirmations import GRACE
from tests.app.test_several_sessions import QUESTION, front, opened, send, window
from tests.fakes.scripted_model import ScriptedModel, call, text

# what the session behind asks, by the model call that asks it
ASKING = {
    "inline command confirmation": lambda root: call("run_shell_command", command="echo hi > out.txt"),
    "diff review": lambda root: call("write_file", file_path=str(root / "out.txt"), content="hi\n"),
    "ask_user question": lambda root: call("ask_user", questions=[QUESTION]),
}
MODAL = {"diff review": DiffReviewScreen, "ask_user question": AskUserScreen}


def answering_keys() -> list[str]:
    """Every key a confirmation answers or moves with: the key map's, each confirmation's bindings, the digits and
    Enter an ask_user question takes, and space (a hunk)."""
    found = {*keys.DECISIONS, *keys.MOVES, keys.EDIT_PLAN, "enter", "space", "tab", *"123456789o"}
    for owner in (ConfirmBar, DiffReviewScreen, AskUserScreen, LoopQuestion):
        for binding in owner.BINDINGS:
            found.update(key.strip() for key in binding.key.split(","))  # type: ignore[union-attr]
    return sorted(found)


def test_the_key_table_holds_every_decision_and_the_reviews_own_keys() -> None:
    table = answering_keys()
    assert {"y", "n", "a", "A", "escape", "r", "j", "space", "ctrl+s", "ctrl+e", "1"} <= set(table)


@pytest.mark.parametrize("kind", list(ASKING))
async def test_no_key_pressed_on_the_front_session_answers_one_behind_it(kind: str, root: Path,
                                                                        tmp_path: Path) -> None:
    hold = asyncio.Event()
    behind = ScriptedModel().add(ASKING[kind](root), wait=hold).add(text("Done."))
    app = window(root, tmp_path, behind, ScriptedModel())
    async with app.run_test(size=(120, 40)) as pilot:
        back = front(app)
        await wait_for(pilot, lambda: back.ready)
        await send(pilot, back, "ask me")
        await wait_for(pilot, lambda: back.busy)
        await pilot.press("ctrl+n")
        shown = await opened(pilot, app, 2)
        hold.set()
        confirmations = back.adapter.confirmations
        await wait_for(pilot, lambda: confirmations.showing is not None)
        request = confirmations.showing
        assert request is not None
        await pilot.pause(GRACE)
        leaked = []
        for key in answering_keys():
            shown.prompt.input.clear()
            await pilot.press(key)
            await pilot.pause(0.05)
            if app.screen is not shown:  # something of the session in front opened (none should): closed again
                leaked.append(f"{key}: opened {type(app.screen).__name__}")
                app.pop_screen()
                await pilot.pause(0.05)
            if request.future.done() or confirmations.showing is not request:
                leaked.append(f"{key}: answered the session behind")
                break
        assert leaked == []
        assert not (root / "out.txt").exists() and app.sessions.current is shown
        if kind in MODAL:
            assert [type(modal) for modal, _ in back.modals.held] == [MODAL[kind]]
        await pilot.press("ctrl+g")  # still there to answer, from the waiting list
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: front(app) is back)
        if kind in MODAL:
            await wait_for(pilot, lambda: isinstance(app.screen, MODAL[kind]))
        await pilot.pause(GRACE)
        await pilot.press("1" if kind == "ask_user question" else "y")
        await wait_for(pilot, lambda: request.future.done() and not back.busy)
    if kind != "ask_user question":
        assert (root / "out.txt").read_text() == "hi\n"
    else:
        assert '"Python"' in str(behind.requests[-1].contents[-1].parts)


LOOP = "I will check the file again now, to be sure of it. " * 30


@pytest.mark.parametrize(("key", "keeps_going"), [("y", True), ("n", False)])
async def test_a_loop_question_behind_waits_for_its_session_and_is_answered_from_the_waiting_list(
        root: Path, tmp_path: Path, key: str, keeps_going: bool) -> None:
    hold = asyncio.Event()
    behind = ScriptedModel().add(call("glob", pattern="*.md"), wait=hold).add(text(LOOP + "Finished.", 40))
    app = window(root, tmp_path, behind, ScriptedModel())
    async with app.run_test(size=(120, 40)) as pilot:
        back = front(app)
        await wait_for(pilot, lambda: back.ready)
        await send(pilot, back, "check it")
        await wait_for(pilot, lambda: back.busy)
        await pilot.press("ctrl+n")
        shown = await opened(pilot, app, 2)
        hold.set()  # the answer starts repeating itself while the second session is in front
        await wait_for(pilot, lambda: back.modals.held)
        assert [type(modal) for modal, _ in back.modals.held] == [LoopQuestion]  # held, not over the front one
        await pilot.pause(GRACE)
        for each in answering_keys():
            shown.prompt.input.clear()
            await pilot.press(each)
            await pilot.pause(0.05)
            if app.screen is not shown:
                app.pop_screen()
                await pilot.pause(0.05)
            assert back.busy and back.modals.held, f"{each} answered the session behind"
        strip = shown.query_one(SessionTabs)
        await wait_for(pilot, lambda: [t.state for t in strip.tabs] == ["waiting", ""])
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert [str(o.prompt) for o in app.screen.query_one("#picker-list").options] == [  # type: ignore[attr-defined]
            "1 · session · The model seems to repeat itself. Stop or keep going?"]
        await pilot.press("enter")
        await wait_for(pilot, lambda: front(app) is back and isinstance(app.screen, LoopQuestion))
        await pilot.press(key)
        await wait_for(pilot, lambda: not back.busy)
        assert not back.adapter.confirmations.loops and app.screen is back
        answer = back.chat.query(AnswerBlock).filter(".answer").last()
        assert answer.text.endswith("Finished.") is keeps_going
        await pilot.press("ctrl+g")  # nothing waits any more
        await pilot.pause(0.2)
        assert not isinstance(app.screen, PickerScreen)
