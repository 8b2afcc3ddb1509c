"""Driving the real app in tests: a Session with a scripted model, bounded waits, typing a prompt."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from gemini_tui.app.main import GeminiApp
from gemini_tui.app.screens.main_screen import MainScreen
from tests.fakes.scripted_model import ScriptedModel, scripted_session


def make_app(root: Path, tmp_path: Path, model: ScriptedModel, **session_args: Any) -> GeminiApp:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return GeminiApp(scripted_session(root, model, home, **session_args), root)


async def wait_for(pilot: Pilot[Any], predicate: Callable[[], object], timeout: float = 30.0) -> None:
    """Until `predicate()` holds. The timeout only bounds a test that is failing anyway: two workers on two loaded
    cores made 5 s too short for conditions that do come."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.02)


def main_screen(pilot: Pilot[Any]) -> MainScreen:
    for screen in pilot.app.screen_stack:
        if isinstance(screen, MainScreen):
            return screen
    raise AssertionError("no main screen")


async def type_and_send(pilot: Pilot[Any], text: str) -> None:
    screen = main_screen(pilot)
    screen.prompt.input.load_text(text)
    screen.prompt.input.focus()
    await pilot.press("enter")
