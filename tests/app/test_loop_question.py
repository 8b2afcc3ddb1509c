"""A suspected loop in the app asks "stop / keep going" instead of ending the answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemini_tui.app.screens.loop_question import LoopQuestion
from gemini_tui.app.widgets.answer import AnswerBlock
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes.scripted_model import ScriptedModel, text

LOOP = "I will check the file again now, to be sure of it. " * 30


@pytest.mark.parametrize(("key", "ends_with"), [("n", False), ("escape", False), ("y", True)])
async def test_loop_question(root: Path, tmp_path: Path, key: str, ends_with: bool) -> None:
    model = ScriptedModel().add(text(LOOP + "Finished.", 40))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, "go")
        await wait_for(pilot, lambda: isinstance(app.screen, LoopQuestion))
        assert "The model seems to repeat itself: stop / keep going" in str(app.screen.query_one("Static").render())
        await pilot.press(key)
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: not screen.busy)
        answer = screen.chat.query(AnswerBlock).filter(".answer").last()
        assert answer.text.endswith("Finished.") is ends_with
