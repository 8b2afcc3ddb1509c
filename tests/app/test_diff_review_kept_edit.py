"""The user's $EDITOR version survives a change on disk during the review: it stays the proposal, diffed against
the new content, the notice says so, and `u` then `y` write it (a `modify`), for write_file and replace, with a
real editor (a script run through $VISUAL) and the real tools."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.app.screens.diff_review import DiffReviewScreen
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.app.test_confirmations import GRACE, last_response
from tests.app.test_diff_review_file_changed import notice, review
from tests.fakes.scripted_model import ScriptedModel, call, text

APPENDED = "# added in my editor\n"


def appending_editor(tmp_path: Path) -> str:
    script = tmp_path / "editor.py"
    script.write_text(f"import sys\nwith open(sys.argv[1], 'a') as f:\n    f.write({APPENDED!r})\n")
    return f"{sys.executable} {script}"


CASES = {
    "write_file": (
        "alpha\n", lambda path: call("write_file", file_path=str(path), content="beta\n"), "beta\n"),
    "replace": (
        "[main]\nname = old\n",
        lambda path: call("replace", file_path=str(path), old_string="name = old", new_string="name = new"),
        "[main]\nname = new\n"),
}


@pytest.mark.parametrize("tool", sorted(CASES))
async def test_an_edit_made_in_the_editor_survives_a_change_on_disk(tool: str, root: Path, tmp_path: Path,
                                                                    monkeypatch: Any) -> None:
    original, make_call, proposed = CASES[tool]
    target = root / "notes.ini"
    target.write_text(original)
    monkeypatch.setenv("VISUAL", appending_editor(tmp_path))
    model = ScriptedModel().add(make_call(target)).add(text("Done."))
    app = make_app(root, tmp_path, model)
    mine = proposed + APPENDED
    theirs = original + "port = 8080\n"
    async with app.run_test(size=(120, 36)) as pilot:
        await type_and_send(pilot, "change it")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffReviewScreen))
        screen = review(app)
        await pilot.pause(GRACE)
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: screen.edited)
        assert screen.shown_diff.new_content == mine and "Your edited version is shown" in notice(screen)
        await asyncio.sleep(0.3)
        target.write_text(theirs)  # another shell changes the file meanwhile
        await wait_for(pilot, lambda: screen.approval_off == "changed")
        # the user's version is still the proposal, now diffed against what is on disk
        assert screen.edited and screen.shown_diff.new_content == mine
        assert screen.shown_diff.original_content == theirs
        assert "+# added in my editor" in screen.shown_diff.diff and "-port = 8080" in screen.shown_diff.diff
        assert "Your edited version is kept" in notice(screen)
        await pilot.pause(GRACE)
        await pilot.press("y")  # approval is off: nothing is written
        await pilot.pause(0.2)
        assert isinstance(app.screen, DiffReviewScreen) and target.read_text() == theirs
        await pilot.press("u")
        await wait_for(pilot, lambda: screen.approval_off is None)
        assert screen.edited and screen.shown_diff.new_content == mine
        assert "your edited version" in notice(screen) and "approval is back on" in notice(screen)
        await pilot.pause(GRACE)
        await pilot.press("y")
        await wait_for(pilot, lambda: not main_screen(pilot).busy)
    assert target.read_text() == mine
    response = str(last_response(model).response)
    assert "The user modified the proposed content" in response and "holds their version" in response


async def test_a_second_change_keeps_the_edit_too(root: Path, tmp_path: Path, monkeypatch: Any) -> None:
    """`u` after another change (the watcher not yet there) re-diffs the user's version, not the model's."""
    from tests.app.test_diff_review import Harness, edit_of

    path = root / "e.txt"
    path.write_text("one\n")
    monkeypatch.setenv("VISUAL", appending_editor(tmp_path))
    app = Harness(edit_of(path, "two\n"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = review(app)
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: screen.edited)
        for disk in ("one\nchanged\n", "one\nchanged again\n"):
            path.write_text(disk)
            await pilot.press("u")
            await wait_for(pilot, lambda disk=disk: screen.shown_diff.original_content == disk)
            assert screen.edited and screen.shown_diff.new_content == "two\n" + APPENDED
        await wait_for(pilot, lambda: screen.approval_off is None)
        await asyncio.sleep(0.3)
        await pilot.press("u", "y")
        await wait_for(pilot, lambda: bool(app.decisions))
    decision = app.decisions[0]
    assert decision.new_content == "two\n" + APPENDED and decision.file_diff is not None
    assert decision.file_diff.original_content == "one\nchanged again\n"
