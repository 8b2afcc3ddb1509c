"""Themes (/theme, ui.theme remembered) and telling the user something waits (title, bell + OSC 9)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.app.themes import GEMINI_CLI_THEMES, named_theme, theme_from_settings
from gemini_tui.core.setup.config import save_user_setting
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.app.test_confirmations import GRACE
from tests.fakes.scripted_model import ScriptedModel, call, text


def settings_file(tmp_path: Path) -> Path:
    return tmp_path / "home" / ".gemini" / "settings.json"


async def test_theme_is_picked_saved_and_applied_at_the_next_start(root: Path, tmp_path: Path) -> None:
    path = settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"model": {"name": "x"}, "ui": {"hideBanner": True}}))
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, "/theme")
        await pilot.pause()
        listing = str(main_screen(pilot).chat.query(".command-output").last().source)
        assert "dracula" in listing and "textual-dark" in listing
        await type_and_send(pilot, "/theme dracula")
        await pilot.pause()
        assert app.theme == "dracula"
        await type_and_send(pilot, "/theme no-such-theme")
        await pilot.pause()
        assert app.theme == "dracula"
    saved = json.loads(path.read_text())
    # gemini-tui's own key: ui.theme is Gemini CLI's, which knows no "dracula" and would start with an error
    assert saved == {"model": {"name": "x"}, "ui": {"hideBanner": True}, "geminiTui": {"theme": "dracula"}}
    again = make_app(root, tmp_path, ScriptedModel())
    async with again.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert again.theme == "dracula"


async def test_theme_never_writes_gemini_cli_ui_theme_and_reads_it_mapped(root: Path, tmp_path: Path) -> None:
    path = settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"ui": {"theme": "Solarized Light"}}))
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.theme == "solarized-light"  # Gemini CLI's theme, mapped to the nearest here
        await type_and_send(pilot, "/theme nord")
        await pilot.pause()
        assert app.theme == "nord"
        await type_and_send(pilot, "/theme Tokyo Night")  # Gemini CLI's names are accepted too
        await pilot.pause()
        assert app.theme == "tokyo-night"
        assert not app._notifications  # nothing was wrong
    assert json.loads(path.read_text()) == {"ui": {"theme": "Solarized Light"}, "geminiTui": {"theme": "tokyo-night"}}
    again = make_app(root, tmp_path, ScriptedModel())
    async with again.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert again.theme == "tokyo-night"  # our own choice wins over Gemini CLI's


@pytest.mark.parametrize("name", [*GEMINI_CLI_THEMES, "my-custom-theme", "/path/to/theme.json"])
def test_every_gemini_cli_theme_maps_to_one_here_and_a_custom_one_keeps_the_default(name: str) -> None:
    from textual.app import App

    available = App().available_themes
    theme, warning = theme_from_settings(None, name, available)
    assert warning == ""  # ui.theme is Gemini CLI's setting: never a mistake to warn about
    if name in GEMINI_CLI_THEMES:
        assert theme in available and named_theme(name.upper(), available) == theme
    else:
        assert theme is None


def test_saving_refuses_a_settings_file_with_comments(tmp_path: Path) -> None:
    path = tmp_path / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    original = '{\n  // my model\n  "model": {"name": "x"}\n}\n'
    path.write_text(original)
    try:
        save_user_setting("ui.theme", "nord", tmp_path)
    except ValueError as exc:
        assert "comments" in str(exc)
    else:
        raise AssertionError("saved over comments")
    assert path.read_text() == original


async def recorded(app: Any) -> list[dict[str, str | None]]:
    calls: list[dict[str, str | None]] = []
    app.signal_terminal = lambda title=None, notify=None: calls.append({"title": title, "notify": notify})
    return calls


async def test_an_approval_sets_the_title_and_notifies_then_the_title_comes_back(root: Path,
                                                                                  tmp_path: Path) -> None:
    model = ScriptedModel().add(call("run_shell_command", command="echo hi")).add(text("ok"))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(100, 30)) as pilot:
        signals = await recorded(app)
        screen = main_screen(pilot)
        await type_and_send(pilot, "run it")
        await wait_for(pilot, lambda: screen.confirm_bar.display)
        assert signals[0]["title"] and "action required" in signals[0]["title"]
        assert signals[0]["notify"] and "approval" in signals[0]["notify"]
        await pilot.pause(GRACE)
        await pilot.press("y")
        await wait_for(pilot, lambda: not screen.busy)
        assert signals[-1] == {"title": "gemini-tui", "notify": None}


async def test_notifications_can_be_turned_off(root: Path, tmp_path: Path) -> None:
    path = settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"ui": {"notifications": False}}))
    model = ScriptedModel().add(call("run_shell_command", command="echo hi")).add(text("ok"))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(100, 30)) as pilot:
        signals = await recorded(app)
        screen = main_screen(pilot)
        await type_and_send(pilot, "run it")
        await wait_for(pilot, lambda: screen.confirm_bar.display)
        assert signals and all(s["notify"] is None for s in signals)
        assert "action required" in str(signals[0]["title"])  # the title is not a notification: it still says so
        await pilot.pause(GRACE)
        await pilot.press("y")
        await wait_for(pilot, lambda: not screen.busy)


async def test_a_long_turn_rings_when_its_answer_is_ready(root: Path, tmp_path: Path, monkeypatch) -> None:
    from gemini_tui.app import turns as module

    monkeypatch.setattr(module, "ANSWER_NOTIFY_AFTER", 0.2)
    model = ScriptedModel().add(text("slow ", 1), text("answer"), delay_s=0.15)
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(100, 30)) as pilot:
        signals = await recorded(app)
        screen = main_screen(pilot)
        await type_and_send(pilot, "think hard")
        await wait_for(pilot, lambda: screen.busy)
        await wait_for(pilot, lambda: not screen.busy)
        assert any(s["notify"] and "answer" in s["notify"] for s in signals)
