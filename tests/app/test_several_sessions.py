"""Several sessions in one window, driven through the real app: open one (Ctrl+N, /session new), switch (Alt+Left/
Right, the Ctrl+O list, /session N), close one (/session close, asked when it works), each with its own approval
mode, chat and autosave; the "waiting on you" list (Ctrl+G) jumps to a background session's question."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from gemini_tui.app.main import GeminiApp
from gemini_tui.app.screens.ask_user import AskUserScreen
from gemini_tui.app.screens.diff_review import DiffReviewScreen
from gemini_tui.app.screens.main_screen import MainScreen
from gemini_tui.app.screens.picker import ConfirmScreen, PickerScreen
from gemini_tui.app.widgets.answer import AnswerBlock
from gemini_tui.app.widgets.confirm_bar import ConfirmBar
from gemini_tui.app.widgets.session_tabs import SessionTabs
from tests.app.app_driver import wait_for
from tests.app.test_confirmations import GRACE
from tests.fakes.scripted_model import ScriptedModel, call, scripted_session, text

QUESTION = {"question": "Which language?", "header": "Lang", "type": "choice",
            "options": [{"label": "Python", "description": ""}, {"label": "Rust", "description": ""}]}


def window(root: Path, tmp_path: Path, *models: ScriptedModel) -> GeminiApp:
    """An app whose first session talks to `models[0]`, each session opened later to the next model."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    later: Iterator[ScriptedModel] = iter(models[1:])
    return GeminiApp(scripted_session(root, models[0], home), root,
                     another=lambda where: scripted_session(where, next(later), home))


def front(app: GeminiApp) -> MainScreen:
    current = app.sessions.current
    assert isinstance(current, MainScreen)
    return current


async def send(pilot: Pilot[Any], screen: MainScreen, prompt: str) -> None:
    screen.prompt.input.load_text(prompt)
    screen.prompt.input.focus()
    await pilot.press("enter")


async def opened(pilot: Pilot[Any], app: GeminiApp, count: int) -> MainScreen:
    """Until `count` sessions are open and the newest is built and in front."""
    await wait_for(pilot, lambda: len(app.sessions.open) == count and app.sessions.open[-1].ready
                   and app.sessions.current is app.sessions.open[-1])
    return front(app)


def chat_text(screen: MainScreen) -> str:
    return " ".join(block.text for block in screen.chat.query(AnswerBlock))


async def test_open_switch_and_close_sessions_each_with_its_own_state(root: Path, tmp_path: Path) -> None:
    one = ScriptedModel().add(text("answer for one"))
    two = ScriptedModel().add(text("answer for two"))
    app = window(root, tmp_path, one, two, ScriptedModel())
    async with app.run_test(size=(110, 32)) as pilot:
        first = front(app)
        await wait_for(pilot, lambda: first.ready)
        assert not first.query(SessionTabs)  # one session: no strip
        await pilot.press("ctrl+n")
        second = await opened(pilot, app, 2)
        assert second is not first and second.session is not first.session
        strip = second.query_one(SessionTabs)
        await wait_for(pilot, lambda: strip.display and [t.number for t in strip.tabs] == [1, 2])
        assert [t.current for t in strip.tabs] == [False, True]
        await send(pilot, second, "hello two")
        await wait_for(pilot, lambda: not second.busy and "answer for two" in chat_text(second))
        assert "answer for two" not in chat_text(first) and len(one.requests) == 0
        await pilot.press("shift+tab")  # the approval mode of the session in front only
        assert second.session.approval_mode != first.session.approval_mode
        await pilot.press("alt+left")
        await wait_for(pilot, lambda: front(app) is first)
        await send(pilot, first, "hello one")
        await wait_for(pilot, lambda: not first.busy and "answer for one" in chat_text(first))
        assert second.session.saved is not first.session.saved
        await send(pilot, first, "/session new")
        third = await opened(pilot, app, 3)
        await send(pilot, third, "/session 2")
        await wait_for(pilot, lambda: front(app) is second)
        await send(pilot, second, "/session close")  # idle: closed without asking
        await wait_for(pilot, lambda: len(app.sessions.open) == 2 and second not in app.sessions.open)
        assert front(app) is third  # the one beside it comes in front
        assert not second.is_attached  # its screen is gone, and with it the session (closed on unmount)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert [str(o.prompt) for o in app.screen.query_one("#picker-list").options] == [  # type: ignore[attr-defined]
            "1 · hello one", "3 · new  (shown)"]
        await pilot.press("enter")
        await wait_for(pilot, lambda: front(app) is first and app.screen is first)


async def test_closing_a_working_session_asks_first(root: Path, tmp_path: Path) -> None:
    hold = asyncio.Event()
    two = ScriptedModel().add(text("never finished"), wait=hold)
    app = window(root, tmp_path, ScriptedModel(), two)
    async with app.run_test(size=(110, 32)) as pilot:
        await wait_for(pilot, lambda: front(app).ready)
        await pilot.press("ctrl+n")
        second = await opened(pilot, app, 2)
        await send(pilot, second, "work")
        await wait_for(pilot, lambda: second.busy)
        await send(pilot, second, "/session close")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await pilot.pause(0.2)
        assert second in app.sessions.open and second.busy
        await send(pilot, second, "/session close")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: len(app.sessions.open) == 1 and not second.is_attached)


async def test_a_background_sessions_command_waits_for_it_and_the_waiting_list_goes_there(
        root: Path, tmp_path: Path) -> None:
    hold = asyncio.Event()
    one = ScriptedModel().add(call("run_shell_command", command="echo hi > out.txt"), wait=hold).add(text("Done."))
    app = window(root, tmp_path, one, ScriptedModel())
    async with app.run_test(size=(110, 32)) as pilot:
        first = front(app)
        await wait_for(pilot, lambda: first.ready)
        await send(pilot, first, "make a file")
        await wait_for(pilot, lambda: first.busy)
        await pilot.press("ctrl+n")
        second = await opened(pilot, app, 2)
        hold.set()  # the first session asks while the second is in front
        queue = first.adapter.confirmations
        await wait_for(pilot, lambda: queue.showing is not None)
        request = queue.showing
        assert request is not None
        await pilot.pause(GRACE)
        await pilot.press("y", "n", "a", "escape")  # the keys go to the session in front
        await pilot.pause(0.2)
        assert not request.future.done() and not (root / "out.txt").exists()
        assert second.prompt.input.text == "yna" and app.screen is second
        strip = second.query_one(SessionTabs)
        await wait_for(pilot, lambda: [t.state for t in strip.tabs] == ["waiting", ""])
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert [str(o.prompt) for o in app.screen.query_one("#picker-list").options] == [  # type: ignore[attr-defined]
            "1 · session · run: echo hi > out.txt"]
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is first)
        bar = first.query_one(ConfirmBar)
        assert bar.request is request and bar.display
        await pilot.pause(GRACE)
        await pilot.press("y")
        await wait_for(pilot, lambda: not first.busy)
    assert (root / "out.txt").read_text() == "hi\n"


async def test_a_background_sessions_review_and_question_open_only_in_front_of_it(root: Path,
                                                                                  tmp_path: Path) -> None:
    hold = asyncio.Event()
    two = (ScriptedModel().add(call("write_file", file_path=str(root / "new.txt"), content="x\n"), wait=hold)
           .add(call("ask_user", questions=[QUESTION])).add(text("Done.")))
    app = window(root, tmp_path, ScriptedModel(), two)
    async with app.run_test(size=(120, 40)) as pilot:
        first = front(app)
        await wait_for(pilot, lambda: first.ready)
        await pilot.press("ctrl+n")
        second = await opened(pilot, app, 2)
        await send(pilot, second, "write it")
        await wait_for(pilot, lambda: second.busy)
        await pilot.press("alt+right")  # round the end: the first session
        await wait_for(pilot, lambda: front(app) is first)
        hold.set()
        await wait_for(pilot, lambda: second.adapter.confirmations.showing is not None)
        await pilot.pause(GRACE)
        assert app.screen is first and second.modals.held  # held, not over the first session
        await pilot.press("y", "A")
        await pilot.pause(0.2)
        assert not (root / "new.txt").exists() and first.prompt.input.text == "yA"
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffReviewScreen))
        await pilot.pause(GRACE)
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, AskUserScreen))
        await pilot.press("alt+left")  # away, with the question open: it stays with its session
        await wait_for(pilot, lambda: app.screen is first)
        await pilot.press("2")
        await pilot.pause(0.2)
        assert second.busy and first.prompt.input.text == "yA2"
        await pilot.press("alt+left")
        await wait_for(pilot, lambda: isinstance(app.screen, AskUserScreen))
        await pilot.pause(0.2)
        await pilot.press("2")
        await wait_for(pilot, lambda: not second.busy)
    assert (root / "new.txt").read_text() == "x\n"
    assert '"Rust"' in str(two.requests[-1].contents[-1].parts)


async def test_a_worktree_that_cannot_be_made_opens_no_session(root: Path, tmp_path: Path) -> None:
    app = window(root, tmp_path, ScriptedModel(), ScriptedModel())
    async with app.run_test(size=(110, 32)) as pilot:
        first = front(app)
        await wait_for(pilot, lambda: first.ready)
        for line in ("/session new -w ../out", "/session new -w feat"):  # a bad name; a folder that is no repository
            await send(pilot, first, line)
            await wait_for(pilot, lambda line=line: any(
                "No worktree" in str(n.render()) for n in first.chat.query(".notice")))
            await first.chat.query(".notice").remove()
        await pilot.pause(0.3)
        assert len(app.sessions.open) == 1 and not (root / ".gemini" / "worktrees").exists()
