"""A first run that teaches: the welcome view until the first prompt, a warning when started in / or $HOME."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes.scripted_model import ScriptedModel, text


async def test_welcome_until_the_first_prompt(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, ScriptedModel().add(text("Hi.")))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        await pilot.pause()
        welcome = str(screen.chat.welcome.render())
        assert screen.chat.welcome.display and "scripted-model" in welcome and "Ctrl+C twice quits" in welcome
        await type_and_send(pilot, "hello")
        await wait_for(pilot, lambda: not screen.busy)
        assert not screen.chat.welcome.display


async def test_offline_welcome_lists_the_phrases_and_how_to_set_a_key(root: Path, tmp_path: Path) -> None:
    model = ScriptedModel(model_name="offline", is_offline=True)
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        welcome = str(main_screen(pilot).chat.welcome.render())
        assert "offline demo model" in welcome and "GEMINI_API_KEY" in welcome
        assert "- read <file>: read a file" in welcome
        assert "`" not in welcome  # code spans are drawn bold, not with their backticks


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (120, 40)])
async def test_the_first_screen_shows_the_welcomes_beginning(size: tuple[int, int], root: Path,
                                                              tmp_path: Path) -> None:
    """The chat follows its bottom; on a screen shorter than the welcome (and the notices under it) the first
    screen shows where the welcome starts, and the first prompt brings the chat back to following."""
    model = ScriptedModel(model_name="offline", is_offline=True).add(text("Hi."))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=size) as pilot:
        screen = main_screen(pilot)
        chat = screen.chat
        await chat.add_notice("a startup notice under the welcome")
        await pilot.pause(0.2)
        assert chat.welcome.region.y >= chat.region.y and chat.welcome.region.y < chat.region.bottom
        assert chat.scroll_y <= chat.welcome.virtual_region.y
        await type_and_send(pilot, "hello")
        await wait_for(pilot, lambda: not screen.busy)
        await pilot.pause(0.2)
        answer = chat.query(".answer").last()  # the chat follows its bottom again: the answer is in view
        assert chat.region.y <= answer.region.y and answer.region.bottom <= chat.region.bottom


@pytest.mark.parametrize("where", ["home", "filesystem root"])
async def test_started_in_home_or_root_warns(where: str, tmp_path: Path, monkeypatch) -> None:
    home = tmp_path / "fakehome"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    root = home if where == "home" else Path("/")
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: any("⚠ gemini-tui was started in" in str(w.render())
                                          for w in screen.chat.query(".notice")))
        notice = next(str(w.render()) for w in screen.chat.query(".notice") if "⚠" in str(w.render()))
        assert (where == "home" and "home directory" in notice) or (where != "home" and "filesystem root" in notice)
        assert screen.chat.welcome.display  # a notice does not end the welcome


async def test_a_project_folder_gets_no_warning(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.2)
        assert not any("⚠" in str(w.render()) for w in main_screen(pilot).chat.query(".notice"))
