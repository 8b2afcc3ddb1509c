"""Key bars at any width: they fit, keep the most important keys, and the real screens show them whole."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

from gemini_tui.app.screens.diff_review import DiffReviewScreen
from gemini_tui.app.widgets.confirm_bar import ConfirmBar
from gemini_tui.app.widgets.key_bar import KeyBar, fit_keys
from gemini_tui.core.ground.confirmation import EditConfirmation
from gemini_tui.core.ground.display import FileDiff
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes.scripted_model import ScriptedModel, call, text

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
        for key in ("y", "a", "r", "]", "[", "esc"):
            assert f" {key} " in bar
        assert len(bar) <= 80


def test_generated_bars_drop_settings_before_what_acts_now_and_keep_order() -> None:
    """Priority bindings come early in Textual's order: the approval-mode keys must still give way before the
    keys about the moment (cancel, close, answer), the palette before them, help after all."""
    rng = random.Random(14)
    for _ in range(400):
        actions = [f"act{i}" for i in range(rng.randint(0, 8))]
        actions += rng.sample(["toggle_yolo", "cycle_mode", "command_palette", "app.help", "cancel_turn", "reject"],
                              rng.randint(0, 6))
        rng.shuffle(actions)
        entries = [(f"k{i}", " ".join(rng.choices(WORDS, k=rng.randint(1, 3))), action)
                   for i, action in enumerate(actions)]
        fitted = fit_keys(entries, rng.randint(8, 160))
        kept = {key for key, _ in fitted}
        order = [key for key, _, _ in entries if key in kept]
        assert [key for key, _ in fitted] == order  # kept keys stay in binding order
        rank = {"command_palette": 0, "toggle_yolo": 1, "cycle_mode": 1, "cancel_turn": 3, "reject": 3, "app.help": 4}
        for key, _, action in entries:
            if key not in kept:  # a key dropped: nothing less important (or as important, bound later) was kept
                for other, _, other_action in entries:
                    if other in kept:
                        assert rank.get(other_action, 2) >= rank.get(action, 2), (action, other_action)
                        if rank.get(other_action, 2) == rank.get(action, 2):
                            assert other < key if len(other) == len(key) else len(other) < len(key)


BAR_WIDTHS = (40, 60, 80)


async def bars_at_widths(pilot: Any) -> dict[int, str]:
    bar = pilot.app.screen.query_one(KeyBar)
    bars = {width: bar.keys_text(width).plain for width in BAR_WIDTHS}
    for width, line in bars.items():
        assert len(line) <= width, (width, line)
    return bars


def assert_keeps(bars: dict[int, str], *keys: str) -> None:
    for width, line in bars.items():
        for key in keys:
            assert f" {key} " in line, (width, key, line)


async def test_every_screen_keeps_its_most_important_keys_at_40_60_and_80_columns(root: Path, tmp_path: Path) -> None:
    (root / "a.py").write_text("a\n")
    held = asyncio.Event()
    model = (ScriptedModel().add(text("streaming "), text("on"), wait=held).add(call("run_shell_command", command="ls"))
             .add(text("listed")).add(call("write_file", file_path=str(root / "a.py"), content="b\n"))
             .add(text("written")))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: screen.ready)
        await pilot.pause(0.1)
        idle = await bars_at_widths(pilot)
        assert_keeps(idle, "^c", "^b", "f1")
        assert_keeps({80: idle[80]}, "^y", "shift+tab")
        await type_and_send(pilot, "stream")  # a turn runs: Esc (cancel) outranks YOLO and the approval mode
        await wait_for(pilot, lambda: screen.busy)
        await pilot.pause(0.1)
        streaming = await bars_at_widths(pilot)
        assert_keeps(streaming, "^c", "esc", "f1")
        assert " esc Cancel" in streaming[40] and " ^y " not in streaming[40]
        await pilot.press("ctrl+b")  # the history panel over a running turn: Esc closes it
        await pilot.pause(0.1)
        history = await bars_at_widths(pilot)
        assert_keeps(history, "^c", "esc", "f1")
        assert " esc Close" in history[40]
        await pilot.press("escape")
        held.set()
        await wait_for(pilot, lambda: not screen.busy)
        await type_and_send(pilot, "list")  # an inline confirmation: its answers before the modes
        confirm = screen.query_one(ConfirmBar)
        await wait_for(pilot, lambda: confirm.listening)
        await pilot.pause(0.1)
        asking = await bars_at_widths(pilot)
        assert_keeps(asking, "y", "esc", "r")
        assert_keeps({60: asking[60], 80: asking[80]}, "^c")
        await pilot.press("y")
        await wait_for(pilot, lambda: not screen.busy)
        await type_and_send(pilot, "write")  # the diff review
        await wait_for(pilot, lambda: isinstance(app.screen, DiffReviewScreen))
        await pilot.pause(0.1)
        review = await bars_at_widths(pilot)
        assert_keeps(review, "y", "r", "esc")
        assert_keeps({60: review[60], 80: review[80]}, "a", "]", "[")
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not screen.busy)
        await pilot.press("f1")  # the help
        await wait_for(pilot, lambda: app.screen is not screen)
        await pilot.pause(0.1)
        assert_keeps(await bars_at_widths(pilot), "esc")


async def test_esc_says_send_now_while_a_prompt_waits_for_mcp_servers(root: Path, tmp_path: Path) -> None:
    """The bar names what Esc does: while the prompt waits for a server still connecting it sends the prompt; once
    the prompt is under way it cancels the turn."""
    import json
    import sys

    (root / ".gemini").mkdir()
    hangs = {"command": sys.executable, "args": ["-c", "import time; time.sleep(60)"]}  # never answers
    (root / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": {"slow": hangs}}))
    model = ScriptedModel().add(call("run_shell_command", command="echo hi")).add(text("done"))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = main_screen(pilot)
        bar = screen.query_one(KeyBar)
        await type_and_send(pilot, "hello")
        def esc() -> list[str]:  # what the bar says Esc does (shortened or not, as the width allows)
            return [description for key, description, action in bar.entries() if key == "esc"]

        await wait_for(pilot, lambda: screen.session.waiting_for_servers and esc() == ["Send now"]
                       and "esc Send now" in str(bar.render()), timeout=15)
        await pilot.press("escape")  # sends it: the model is asked, without the slow server's tools
        await wait_for(pilot, lambda: model.requests and esc() == ["Cancel turn"], timeout=10)
        assert screen.busy
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, timeout=10)
