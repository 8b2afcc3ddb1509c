"""The main screen driven by a real Session and a scripted model: streaming, cards, queue, keys."""

from __future__ import annotations

import asyncio
from pathlib import Path

from gemini_tui.app.screens.main_screen import MainScreen
from gemini_tui.app.widgets.answer import AnswerBlock, ThoughtBlock
from gemini_tui.app.widgets.chat import ToolCallCard
from gemini_tui.core.ground.events import CallState
from gemini_tui.core.session.scheduler import ApprovalMode
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes.scripted_model import ScriptedModel, call, text, thought


async def test_streamed_answer_and_thought(root: Path, tmp_path: Path) -> None:
    model = ScriptedModel().add(thought("Let me think"), text("# Title\n\nSome **bold** text and `code`.", 5))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, "hello there")
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await wait_for(pilot, lambda: not screen.busy and screen.chat.query(AnswerBlock).filter(".answer"))
        answer = screen.chat.query(AnswerBlock).filter(".answer").last()
        assert answer.text == "# Title\n\nSome **bold** text and `code`."
        thoughts = screen.chat.query(ThoughtBlock)
        assert len(thoughts) == 1 and thoughts.first().collapsed
        assert thoughts.first().title == "Thought"
        assert "hello there" in str(screen.chat.query(".user-prompt").first().render())
        assert screen.status.tokens == 15


async def test_read_only_call_card_and_queue(root: Path, tmp_path: Path) -> None:
    (root / "a.txt").write_text("alpha\n")
    model = ScriptedModel().add(call("glob", pattern="*.txt")).add(text("Found."))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, "list it")
        screen = app.screen
        await wait_for(pilot, lambda: not screen.busy and screen.chat.query(ToolCallCard))
        card = screen.chat.query(ToolCallCard).first()
        assert card.call.state is CallState.success
        assert card.result is not None and "a.txt" in str(card.result.llm_content)
        assert [e.call.state for e in screen.queue.entries.values()] == [CallState.success]
        assert "FindFiles" in str(screen.queue.queue_text())
        card.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(card.query(".call-body")))
        assert card.expanded


async def test_shift_tab_cycles_mode_and_ctrl_y_toggles_yolo(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert screen.session.approval_mode is ApprovalMode.default
        await pilot.press("shift+tab")
        assert screen.session.approval_mode is ApprovalMode.auto_edit
        assert screen.status.approval_mode == "auto_edit"
        await pilot.press("ctrl+y")
        assert screen.session.approval_mode is ApprovalMode.yolo
        assert screen.status.has_class("-yolo")
        await pilot.press("ctrl+y")
        assert screen.session.approval_mode is ApprovalMode.default


async def test_escape_cancels_running_turn(root: Path, tmp_path: Path) -> None:
    hold = asyncio.Event()
    model = ScriptedModel().add(text("partial answer "), text("never shown"), wait=hold)
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, "go")
        screen = app.screen
        await wait_for(pilot, lambda: bool(screen.chat.query(AnswerBlock).filter(".answer")))
        assert screen.busy
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy)
        answer = screen.chat.query(AnswerBlock).filter(".answer").last()
        assert answer.text == "partial answer "
        notices = [str(n.render()) for n in screen.chat.query(".notice")]
        assert any("cancelled" in n for n in notices)


async def test_ctrl_c_clears_then_quits_twice(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        screen.prompt.input.load_text("draft")
        await pilot.press("ctrl+c")
        assert screen.prompt.input.text == ""
        await pilot.pause(QUIT_PAUSE)
        await pilot.press("ctrl+c")
        assert app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert not app.is_running


QUIT_PAUSE = 1.1


async def test_a_turn_ending_in_an_error_says_it_once(root: Path, tmp_path: Path) -> None:
    model = ScriptedModel().add(text("lorem ipsum dolor sit amet " * 400, size=27))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(110, 32)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "go")
        # a suspected loop asks first (issue 11); stopping ends the turn with the loop error
        await wait_for(pilot, lambda: type(app.screen).__name__ == "LoopQuestion")
        await pilot.press("n")
        await wait_for(pilot, lambda: not screen.busy and screen.chat.query(".notice"))
        await pilot.pause(0.1)
        notices = [str(n.render()) for n in screen.chat.query(".notice")]
    assert any("loop_detected" in n for n in notices), notices
    assert sum(n.count("Loop detected") for n in notices) == 1, notices


async def test_ansi_themes_keep_the_prompt_and_the_confirmation_readable(root: Path, tmp_path: Path) -> None:
    # ANSI themes cannot blend a colour at 10%: a tinted background becomes the full colour of the text on it
    model = ScriptedModel().add(call("run_shell_command", command="echo hi")).add(text("ok"))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(110, 32)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "hello")
        await wait_for(pilot, lambda: screen.query(".confirm-title") and screen.query_one(".confirm-title").display)
        for theme in ("ansi-light", "ansi-dark"):
            app.theme = theme
            await pilot.pause()
            for selector in (".user-prompt", ".confirm-title"):
                widget = screen.query_one(selector)
                _, _, background, color = widget.colors
                assert color != background, (theme, selector, color, background)


async def test_help_shows_its_own_keys(root: Path, tmp_path: Path) -> None:
    from gemini_tui.app.screens.help import HelpScreen
    from gemini_tui.app.widgets.key_bar import KeyBar

    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(110, 32)) as pilot:
        main_screen(pilot)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        # the main screen's bar (^b History, ...) showed through, though none of its keys work under the help
        bars = list(app.screen.query(KeyBar))
        assert bars and "Close" in bars[0].keys_text().plain and "History" not in bars[0].keys_text().plain
        await pilot.press("escape")
        assert main_screen(pilot).prompt.input.has_focus
