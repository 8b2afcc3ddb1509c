"""A file that changes on disk under an open diff review turns approval off until `u` re-reads it: y / a / A and
Ctrl+S do nothing but say why again, the key bar offers `u` in their place, a deleted or unreadable file keeps
approval off, and a rejection tells the model `file_changed`. Each path with the file watcher (a harness app and
the real app with the real replace tool), and generated key/disk sequences checked against an oracle."""

from __future__ import annotations

import asyncio
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from gemini_tui.app.screens.diff_review import DiffReviewScreen
from gemini_tui.app.widgets.key_bar import KeyBar
from gemini_tui.core.ground.confirmation import ConfirmationOutcome, EditConfirmation
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.app.test_confirmations import GRACE, last_response
from tests.app.test_diff_review import Harness, edit_of
from tests.fakes.scripted_model import ScriptedModel, call, text

APPROVALS = {"y": ConfirmationOutcome.proceed_once, "a": ConfirmationOutcome.proceed_always,
             "A": ConfirmationOutcome.proceed_always_and_save}


def review(app: Any) -> DiffReviewScreen:
    screen = app.screen
    assert isinstance(screen, DiffReviewScreen)
    return screen


def keys_shown(screen: DiffReviewScreen) -> list[str]:
    return [key for key, _, _ in screen.query_one(KeyBar).entries()]


def notice(screen: DiffReviewScreen) -> str:
    widget = screen.query_one("#review-notice")
    return str(widget.render()) if widget.display else ""


async def until(pilot: Pilot[Any], predicate: Any, timeout: float = 5.0) -> None:
    await wait_for(pilot, predicate, timeout)


async def test_a_watched_change_turns_approval_off_until_u(root: Path) -> None:
    path = root / "a.txt"
    path.write_text("one\ntwo\n")
    app = Harness(edit_of(path, "one\nTWO\n"))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = review(app)
        assert keys_shown(screen)[0] == "y" and "u" not in keys_shown(screen)
        await asyncio.sleep(0.3)  # the watcher starts
        path.write_text("zero\none\ntwo\n")
        await until(pilot, lambda: screen.approval_off == "changed")
        await pilot.pause()
        # the key bar: `u` first in place of the allow keys, which are gone
        shown = keys_shown(screen)
        assert shown[0] == "u" and not {"y", "a", "A"} & set(shown)
        assert "u Re-review" in screen.query_one(KeyBar).keys_text(80).plain
        # and the bar on screen is redrawn so (after the bindings change is signalled)
        await until(pilot, lambda: str(screen.query_one(KeyBar).render()).startswith(" u Re-review"))
        assert " y Allow" not in str(screen.query_one(KeyBar).render())
        said = notice(screen)
        assert "a.txt changed on disk" in said and "approval is off" in said and "u re-reads it" in said
        assert screen.shown_diff.original_content == "zero\none\ntwo\n"  # the new diff is already shown
        screen.query_one("#review-notice").display = False
        for key in ("y", "a", "A"):
            await pilot.press(key)
            await pilot.pause()
            assert not app.decisions and "approval is off" in notice(screen)  # said again, nothing else
        await pilot.press("u")
        await pilot.pause()
        assert screen.approval_off is None and keys_shown(screen)[0] == "y" and "approval is back on" in notice(screen)
        await until(pilot, lambda: str(screen.query_one(KeyBar).render()).startswith(" y Allow"))
        await pilot.press("y")
        await pilot.pause()
    [decision] = app.decisions
    assert decision.outcome is ConfirmationOutcome.proceed_once
    assert decision.file_diff is not None and decision.file_diff.original_content == "zero\none\ntwo\n"


async def test_a_deleted_file_keeps_approval_off_until_it_is_back(root: Path) -> None:
    path = root / "b.txt"
    path.write_text("one\n")
    app = Harness(edit_of(path, "uno\n"))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = review(app)
        await asyncio.sleep(0.3)
        path.unlink()
        await until(pilot, lambda: screen.approval_off == "deleted")
        assert "b.txt was deleted on disk" in notice(screen) and "approval is off" in notice(screen)
        await pilot.press("y", "u", "y")  # still gone: u says so again, approval stays off
        await pilot.pause()
        assert not app.decisions and screen.approval_off == "deleted" and "was deleted" in notice(screen)
        path.write_text("one again\n")
        await pilot.pause(0.3)
        await pilot.press("u")
        await until(pilot, lambda: screen.approval_off is None)
        await pilot.press("y")
        await pilot.pause()
    [decision] = app.decisions
    assert decision.file_diff is not None and decision.file_diff.original_content == "one again\n"


async def test_an_unreadable_file_keeps_approval_off_and_rejecting_tells_the_model(root: Path) -> None:
    path = root / "c.txt"
    path.write_text("one\n")
    app = Harness(edit_of(path, "uno\n"))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = review(app)
        await asyncio.sleep(0.3)
        path.unlink()
        path.mkdir()  # it is there, and cannot be read as a file (root reads any mode, so no chmod here)
        await until(pilot, lambda: screen.approval_off == "unavailable")
        assert "c.txt can no longer be read or edited" in notice(screen)
        await pilot.press("a", "u", "A")
        await pilot.pause()
        assert not app.decisions and screen.approval_off == "unavailable"
        await pilot.press("escape")
        await pilot.pause()
    [decision] = app.decisions
    assert decision.outcome is ConfirmationOutcome.cancel
    assert decision.note is not None and decision.note.startswith(
        f"file_changed: {path} can no longer be read or edited")


# -- generated: disk changes and keys, without a watcher (so each check happens when a key asks), vs an oracle ----

DISK_EVENTS = ("write", "write", "same", "delete", "unreadable")


def oracle_step(state: dict[str, Any], step: str, disk: str | None) -> str | None:
    """What one key must do: "approve", "reject", or None (nothing decided). `disk` is the content (None when
    deleted, "<dir>" when unreadable); state holds `base` (the diff's original), `off` and `changed`."""
    gone = "deleted" if disk is None else "unavailable" if disk == "<dir>" else None
    if step in APPROVALS:
        if state["off"]:
            return None
        if gone or disk != state["base"]:
            state["off"], state["changed"] = gone or "changed", True
            if not gone:
                state["base"] = disk
            return None
        return "approve"
    if step == "u":
        if gone:
            state["off"], state["changed"] = gone, True
        elif state["off"] or disk != state["base"]:
            state["changed"] = state["changed"] or disk != state["base"]
            state["base"], state["off"] = disk, None
        return None
    return "reject"  # escape


def set_disk(path: Path, content: str | None) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()
    if content == "<dir>":
        path.mkdir()
    elif content is not None:
        path.write_text(content)


@pytest.mark.parametrize("seed", range(40))
async def test_generated_sequences_never_approve_a_diff_nobody_re_read(seed: int, root: Path) -> None:
    rng = random.Random(seed)
    path = root / "g.txt"
    disk: str | None = "start\n"
    path.write_text(disk)
    watched = edit_of(path, "proposal\n")
    app = Harness(EditConfirmation(watched.title, "", watched.file_diff, watched.refresh))  # no path: no watcher
    state: dict[str, Any] = {"base": disk, "off": None, "changed": False}
    expected: str | None = None
    async with app.run_test(size=(100, 30)) as pilot:
        screen = review(app)
        for n in range(rng.randint(3, 12)):
            if rng.random() < 0.4:
                match rng.choice(DISK_EVENTS):
                    case "write":
                        disk = f"version {seed}.{n}\n"
                    case "same":
                        disk = disk if disk not in (None, "<dir>") else "start\n"
                    case "delete":
                        disk = None
                    case _:
                        disk = "<dir>"
                set_disk(path, disk)
            step = rng.choice(["y", "a", "A", "u", "u", "y", "escape"] if n > 2 else ["y", "u", "a"])
            expected = oracle_step(state, step, disk)
            await pilot.press(step)
            await pilot.pause()
            if expected is not None:
                break
            assert screen.approval_off == state["off"], (step, disk, state)
            if state["off"]:
                assert keys_shown(screen)[0] == "u" and not {"y", "a", "A"} & set(keys_shown(screen))
    if expected is None:
        assert not app.decisions
        return
    [decision] = app.decisions
    if expected == "reject":
        assert decision.outcome is ConfirmationOutcome.cancel
        assert (decision.note or "").startswith("file_changed:") == state["changed"] and decision.feedback is None
    else:
        # approved: the diff approved is the file's content at that moment, which the user had re-read
        assert decision.outcome is APPROVALS[step]
        assert decision.file_diff is not None and decision.file_diff.original_content == disk == state["base"]


# -- the real app, the real replace tool: the model's edit applies to the new content once re-read -------------

async def test_in_the_app_y_waits_for_u_and_the_edit_applies_to_the_new_content(root: Path, tmp_path: Path) -> None:
    target = root / "config.ini"
    target.write_text("[main]\nname = old\n")
    model = (ScriptedModel().add(call("replace", file_path=str(target), old_string="name = old",
                                      new_string="name = new")).add(text("Saved.")))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(120, 36)) as pilot:
        await type_and_send(pilot, "rename it")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffReviewScreen))
        screen = review(app)
        await asyncio.sleep(0.3)
        target.write_text("[main]\nname = old\nport = 8080\n")  # someone else edits the file meanwhile
        await until(pilot, lambda: screen.approval_off == "changed")
        await pilot.pause(GRACE)
        await pilot.press("y")
        await pilot.pause(0.2)
        assert isinstance(app.screen, DiffReviewScreen) and target.read_text() == "[main]\nname = old\nport = 8080\n"
        await pilot.press("u")
        await pilot.pause(GRACE)
        await pilot.press("y")
        await wait_for(pilot, lambda: not main_screen(pilot).busy)
    assert target.read_text() == "[main]\nname = new\nport = 8080\n"
    assert "output" in last_response(model).response


async def test_in_the_app_rejecting_after_a_change_tells_the_model_file_changed(root: Path, tmp_path: Path) -> None:
    target = root / "notes.txt"
    target.write_text("alpha\n")
    model = ScriptedModel().add(call("write_file", file_path=str(target), content="beta\n")).add(text("Left it."))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(120, 36)) as pilot:
        await type_and_send(pilot, "write it")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffReviewScreen))
        screen = review(app)
        await asyncio.sleep(0.3)
        target.unlink()
        await until(pilot, lambda: screen.approval_off == "deleted")
        await pilot.pause(GRACE)
        await pilot.press("y")
        await pilot.pause(0.2)
        assert not target.exists()
        await pilot.press("escape")
        await wait_for(pilot, lambda: not main_screen(pilot).busy)
    assert not target.exists()
    error = str(last_response(model).response["error"])
    # told as what happened, not as the user's words ("Their message: ..." is for what the user typed)
    assert error.startswith(f"The user rejected this write_file call; it was not run. file_changed: {target} was "
                            "deleted while the user reviewed this edit")
    assert "Their message" not in error
