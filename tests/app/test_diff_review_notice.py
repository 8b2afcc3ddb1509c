"""Inside the diff review, messages go to the review's own notice line (laid out above the diff, so it never
covers a line under review), never to toasts drawn over the diff; a passing message leaves the standing notice
(approval off, ...) under it and goes after a few seconds."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.app.diff.view import DiffView
from gemini_tui.app.screens import diff_review
from gemini_tui.app.screens.diff_review import DiffReviewScreen
from tests.app.app_driver import wait_for
from tests.app.test_diff_review import Harness, edit_of, plain
from tests.app.test_diff_review_file_changed import notice


def long_line_change() -> tuple[str, str]:
    line = "x" * 400
    return f"head\n{line}\ntail\n", f"head\n{line[:300]}CHANGED{line[307:]}\ntail\n"


def editor_script(tmp_path: Path, body: str) -> str:
    script = tmp_path / "editor.py"
    script.write_text(f"import sys\n{body}\n")
    return f"{sys.executable} {script}"


# each: the editor ("script:" a Python body run as the editor, else a command, None unset), the keys, a phrase
TRIGGERS: dict[str, tuple[str | None, tuple[str, ...], str]] = {
    "split hides changes": (None, ("w", "v"), "Side by side would hide changes"),
    "no editor": (None, ("ctrl+e",), "Set $VISUAL or $EDITOR"),
    "editor fails": ("script:raise SystemExit(3)", ("ctrl+e",), "exited with status 3"),
    "editor changes nothing": ("script:pass", ("ctrl+e",), "No change made in the editor"),
    "editor cannot run": ("/nonexistent/editor", ("ctrl+e",), "Could not run the editor"),
    "nothing changed on disk": (None, ("u",), "what this diff was made from"),
}


def rectangles_overlap(a: Any, b: Any) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


@pytest.mark.parametrize("size", [(100, 30), (60, 20), (40, 20)])
@pytest.mark.parametrize("name", sorted(TRIGGERS))
async def test_messages_go_to_the_notice_line_not_to_toasts(name: str, size: tuple[int, int], root: Path,
                                                            tmp_path: Path, monkeypatch: Any) -> None:
    editor, keys, phrase = TRIGGERS[name]
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    if editor is not None:
        command = editor_script(tmp_path, editor.removeprefix("script:")) if editor.startswith("script:") else editor
        monkeypatch.setenv("VISUAL", command)
    original, proposed = long_line_change()
    path = root / "long.txt"
    path.write_text(original)
    app = Harness(edit_of(path, proposed))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DiffReviewScreen)
        await pilot.press(*keys)
        await wait_for(pilot, lambda: phrase in notice(screen))
        assert not app._notifications  # no toast over the diff
        shown = screen.query_one("#review-notice").region
        assert not rectangles_overlap(shown, screen.query_one(DiffView).region)


async def test_a_passing_message_keeps_the_standing_notice_and_goes(root: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(diff_review, "SAY_SECONDS", 0.3)
    original, proposed = long_line_change()
    path = root / "long.txt"
    path.write_text(original)
    app = Harness(edit_of(path, proposed))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DiffReviewScreen)
        path.write_text(original + "more\n")
        await wait_for(pilot, lambda: screen.approval_off == "changed")
        standing = notice(screen)
        assert "approval is off" in standing
        await pilot.press("w", "v")
        await pilot.pause()
        assert "Side by side would hide" in notice(screen) and standing in notice(screen)
        await wait_for(pilot, lambda: notice(screen) == standing)
        assert not app._notifications


async def test_no_toast_while_reviewing_a_plain_diff() -> None:
    app = Harness(plain("a\n", "b\n"))
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        await pilot.press("v", "v", "w", "w", "u", "right_square_bracket", "left_square_bracket")
        await pilot.pause()
        assert not app._notifications

