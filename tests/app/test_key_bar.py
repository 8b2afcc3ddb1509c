"""Key bars at any width: they fit, keep the most important keys, and the real screens show them whole."""

from __future__ import annotations

import random
from pathlib import Path

from gemini_tui.app.screens.diff_review import DiffReviewScreen
from gemini_tui.app.widgets.key_bar import KeyBar, fit_keys
from gemini_tui.core.confirmation import EditConfirmation
from gemini_tui.core.display import FileDiff
from tests.app.app_driver import make_app
from tests.fakes.scripted_model import ScriptedModel

WORDS = ("Allow", "once", "for", "session", "Reject…", "Next", "change", "Help", "Clear/cancel", "(twice quits)")


def width_of(fitted: list[tuple[str, str]]) -> int:
    return sum(len(key) + 2 + (len(text) + 1 if text else 0) for key, text in fitted)


def test_generated_bars_fit_and_keep_a_prefix_of_the_keys_and_help_last_to_go() -> None:
    rng = random.Random(8)
    for _ in range(400):
        entries = [(f"k{i}", " ".join(rng.choices(WORDS, k=rng.randint(1, 3))), f"act{i}")
                   for i in range(rng.randint(1, 14))]
        if rng.random() < 0.5:
            entries.insert(rng.randrange(len(entries) + 1), ("f1", "Help", "app.help"))
        width = rng.randint(8, 220)
        fitted = fit_keys(entries, width)
        assert width_of(fitted) <= width or len(fitted) == 0
        keys = [key for key, _ in fitted]
        others = [key for key, _, action in entries if not action.endswith("help")]
        kept_others = [key for key in keys if key != "f1"]
        assert kept_others == others[:len(kept_others)]  # the least important go first
        if "f1" in [key for key, _, _ in entries] and kept_others:
            assert "f1" in keys  # help outlives every other key but it cannot be alone... unless nothing fits
        if width_of([(key, text) for key, text, _ in entries]) <= width:
            assert fitted == [(key, text) for key, text, _ in entries]  # room: nothing shortened


async def test_main_screen_and_review_bars_at_80_columns_keep_their_keys(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.2)
        bar = app.screen.query_one(KeyBar).keys_text().plain
        for key in ("^c", "^y", "shift+tab", "^b", "f1"):
            assert f" {key} " in bar
        assert len(bar) <= 80
        diff = FileDiff.between("/r/a.py", "a\n", "b\n")
        app.push_screen(DiffReviewScreen(EditConfirmation("Confirm Edit: a.py", "/r/a.py", diff), grace_period=0))
        await pilot.pause(0.2)
        bar = app.screen.query_one(KeyBar).keys_text().plain
        for key in ("y", "a", "r", "n", "p", "esc"):
            assert f" {key} " in bar
        assert len(bar) <= 80
