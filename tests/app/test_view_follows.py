"""The view follows the user: sending returns to the bottom, new output below is flagged, the chat scrolls from
the prompt, stray keys reach the prompt, Esc comes back to it; and no size breaks the screen."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gemini_tui.app.screens.diff_review import DiffReviewScreen
from gemini_tui.app.widgets.chat import ToolCallCard
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.app.test_confirmations import GRACE
from tests.fakes.scripted_model import ScriptedModel, call, text

LONG = "\n\n".join(f"Paragraph {i}: " + "words " * 30 for i in range(40))


def long_answers(n: int) -> ScriptedModel:
    model = ScriptedModel()
    for _ in range(n):
        model.add(text(LONG))
    return model


async def test_scrolled_up_then_send_returns_to_the_bottom(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, long_answers(2))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "first")
        await wait_for(pilot, lambda: not screen.busy)
        await pilot.pause()
        screen.chat.scroll_home(animate=False)
        await pilot.pause()
        assert screen.chat.scroll_y == 0 and screen.chat.max_scroll_y > 10
        await type_and_send(pilot, "second")
        await wait_for(pilot, lambda: not screen.busy)
        await pilot.pause(0.1)
        assert screen.chat.scroll_y >= screen.chat.max_scroll_y - 1
        assert not screen.chat.unseen


async def test_new_output_while_scrolled_up_is_flagged_until_the_end_is_reached(root: Path, tmp_path: Path) -> None:
    gate = asyncio.Event()
    model = long_answers(1)
    model.add(text("Part one. " * 200), text("And the rest, arriving later."), wait=gate)
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        chat = screen.chat
        await type_and_send(pilot, "first")
        await wait_for(pilot, lambda: not screen.busy)
        await type_and_send(pilot, "second")
        await pilot.pause(0.2)
        await pilot.press("pageup", "pageup")  # from the prompt: it keeps the focus
        assert app.focused is screen.prompt.input
        assert chat.scrolled_away and not chat.unseen
        gate.set()
        await wait_for(pilot, lambda: not screen.busy)
        assert chat.unseen and chat._below.display
        assert "new output below" in str(chat._below.render())
        await pilot.press("end")  # the prompt is empty: End goes to the bottom of the chat
        await pilot.pause()
        assert not chat.unseen and chat.scroll_y >= chat.max_scroll_y - 1


async def test_page_keys_scroll_the_chat_and_home_end_move_the_cursor_when_the_prompt_has_text(
        root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, long_answers(1))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        chat = screen.chat
        await type_and_send(pilot, "first")
        await wait_for(pilot, lambda: not screen.busy)
        await pilot.pause()
        bottom = chat.scroll_y
        await pilot.press("pageup")
        await pilot.pause()
        assert chat.scroll_y < bottom and app.focused is screen.prompt.input
        await pilot.press("pagedown")
        await pilot.pause()
        assert chat.scroll_y == bottom
        await pilot.press(*"draft")
        await pilot.press("home")  # a prompt with text: Home is the cursor's
        await pilot.pause()
        assert screen.prompt.input.cursor_location == (0, 0) and chat.scroll_y == bottom
        await pilot.press("ctrl+home")  # Ctrl+Home always scrolls the chat
        await pilot.pause()
        assert chat.scroll_y == 0 and screen.prompt.input.text == "draft"


async def test_typing_on_a_card_goes_to_the_prompt_and_esc_comes_back(root: Path, tmp_path: Path) -> None:
    (root / "a.txt").write_text("alpha\n")
    model = ScriptedModel().add(call("glob", pattern="*.txt")).add(text("Found."))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "list it")
        await wait_for(pilot, lambda: not screen.busy and screen.chat.query(ToolCallCard))
        card = screen.chat.query(ToolCallCard).first()
        card.focus()
        await pilot.press(*"why?")
        assert app.focused is screen.prompt.input and screen.prompt.input.text == "why?"
        card.focus()
        await pilot.press("escape")
        assert app.focused is screen.prompt.input


SIZES = [(12, 6), (20, 10), (30, 20), (40, 20), (40, 8), (59, 20), (60, 20), (80, 24)]


@pytest.mark.parametrize(("width", "height"), SIZES)
async def test_no_size_breaks_the_screens(width: int, height: int, root: Path, tmp_path: Path) -> None:
    """Every size from tiny up: Ctrl+B, help, a review, typing: the app keeps running, no exception escapes."""
    target = root / "t.txt"
    target.write_text("one\n")
    model = ScriptedModel().add(call("replace", file_path=str(target), old_string="one", new_string="two"))
    app = make_app(root, tmp_path, model.add(text("done")))
    async with app.run_test(size=(width, height)) as pilot:
        screen = main_screen(pilot)
        await pilot.press("ctrl+b")
        await pilot.pause()
        await pilot.press("ctrl+b", "f1")
        await pilot.pause()
        await pilot.press("escape")
        await type_and_send(pilot, "edit " + "x" * 50)
        await wait_for(pilot, lambda app=app: isinstance(app.screen, DiffReviewScreen))
        await pilot.pause(GRACE)  # the review takes keys once typing has paused (app/typing_guard.py)
        await pilot.press("w", "v", "right_square_bracket")
        await pilot.pause()
        await pilot.press("escape")
        await wait_for(pilot, lambda screen=screen: not screen.busy)
        assert app.is_running, (width, height)
    assert app.return_code in (None, 0), (width, height)
