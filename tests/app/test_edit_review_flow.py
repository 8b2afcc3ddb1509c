"""Edits reviewed in the diff modal from the main screen: approve, reject with a reason, edit, per hunk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import TextArea

from gemini_tui.app.screens.diff_review import DiffReviewScreen
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.app.test_confirmations import GRACE, last_response
from tests.fakes.scripted_model import ScriptedModel, call, text

ORIGINAL = "".join(f"line {i}\n" for i in range(1, 41))


def replace_call(path: Path, old: str, new: str) -> ScriptedModel:
    return ScriptedModel().add(call("replace", file_path=str(path), old_string=old, new_string=new)).add(text("ok"))


async def open_modal(pilot: Pilot[Any], prompt: str) -> DiffReviewScreen:
    await type_and_send(pilot, prompt)
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, DiffReviewScreen))
    await pilot.pause(GRACE)
    screen = pilot.app.screen
    assert isinstance(screen, DiffReviewScreen)
    return screen


async def test_approve_edit_writes_the_file(root: Path, tmp_path: Path) -> None:
    target = root / "notes.txt"
    target.write_text(ORIGINAL)
    app = make_app(root, tmp_path, replace_call(target, "line 5\n", "line five\n"))
    async with app.run_test(size=(120, 36)) as pilot:
        await open_modal(pilot, "edit")
        await pilot.press("y")
        await wait_for(pilot, lambda: not main_screen(pilot).busy)
    assert target.read_text() == ORIGINAL.replace("line 5\n", "line five\n")


async def test_reject_edit_with_reason_leaves_file(root: Path, tmp_path: Path) -> None:
    target = root / "notes.txt"
    target.write_text(ORIGINAL)
    model = replace_call(target, "line 5\n", "line five\n")
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_modal(pilot, "edit")
        await pilot.press("r")  # n is "next change" in the review
        await pilot.press(*"keep digits")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not main_screen(pilot).busy)
    assert target.read_text() == ORIGINAL
    assert "keep digits" in str(last_response(model).response)


async def test_edit_then_apply_writes_the_users_content(root: Path, tmp_path: Path) -> None:
    target = root / "notes.txt"
    target.write_text(ORIGINAL)
    app = make_app(root, tmp_path, replace_call(target, "line 5\n", "line five\n"))
    async with app.run_test(size=(120, 36)) as pilot:
        modal = await open_modal(pilot, "edit")
        await pilot.press("e")
        editor = modal.query_one(TextArea)
        await wait_for(pilot, lambda: editor.display and editor.text)
        editor.load_text(editor.text.replace("line five", "line 5 (edited)"))
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not main_screen(pilot).busy)
    assert target.read_text() == ORIGINAL.replace("line 5\n", "line 5 (edited)\n")


async def test_rejecting_one_hunk_writes_only_the_other(root: Path, tmp_path: Path) -> None:
    target = root / "notes.txt"
    target.write_text(ORIGINAL)
    old = "".join(f"line {i}\n" for i in range(2, 36))
    new = old.replace("line 2\n", "line TWO\n").replace("line 35\n", "line THIRTY-FIVE\n")
    model = replace_call(target, old, new)
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_modal(pilot, "edit")
        await pilot.press("space")  # reject the first hunk
        await pilot.press("y")
        await wait_for(pilot, lambda: not main_screen(pilot).busy)
    content = target.read_text()
    assert "line 2\n" in content and "line TWO" not in content
    assert "line THIRTY-FIVE\n" in content
    assert "hunk" in str(last_response(model).response).lower()
