"""Toasts never cover the prompt (they used to sit over its border at the bottom right)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets._toast import Toast

from tests.app.app_driver import main_screen, make_app
from tests.fakes.scripted_model import ScriptedModel


async def test_toasts_do_not_overlap_the_prompt_or_the_key_bar(root: Path, tmp_path: Path) -> None:
    for size in ((80, 24), (120, 40), (60, 20)):
        app = make_app(root, tmp_path, ScriptedModel())
        async with app.run_test(size=size, notifications=True) as pilot:
            screen = main_screen(pilot)
            app.notify("A notice with enough words to take two lines in a toast", timeout=30)
            await pilot.pause(0.3)
            toasts = list(app.screen.query(Toast))
            assert toasts
            prompt = screen.prompt.region
            for toast in toasts:
                assert not toast.region.overlaps(prompt), (size, toast.region, prompt)
                assert toast.region.y >= 1  # under the status line
