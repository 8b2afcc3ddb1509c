"""The review says what happened when the edit under review can no longer be made, for every way the file can
change (the cases of tests/tools/test_edit_since_review.py, through the real tools): the notice names it, approval
stays off, and a rejection tells the model the same words (never "unreadable" for a file that merely changed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemini_tui.core.ground.confirmation import ConfirmationOutcome
from tests.app.test_diff_review import Harness
from tests.app.test_diff_review_file_changed import notice, review
from tests.tools.test_edit_since_review import DURING, EVENTS, under_review

UNAVAILABLE = sorted(case for case, (kind, _) in DURING.items() if kind not in ("diff", "same"))


@pytest.mark.parametrize(("tool_name", "event"), UNAVAILABLE, ids=[f"{t}-{e}" for t, e in UNAVAILABLE])
async def test_the_review_names_what_happened_and_tells_the_model(root: Path, tool_name: str, event: str) -> None:
    path, _, _, details = await under_review(root, tool_name, event)
    kind, words = DURING[(tool_name, event)]
    app = Harness(details)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        screen = review(app)
        EVENTS[event](path)
        await pilot.press("u")  # (the watcher may be first: either way the re-read finds it)
        for _ in range(100):
            await pilot.pause(0.02)
            if screen.approval_off is not None:
                break
        assert screen.approval_off == ("deleted" if kind == "deleted" else "unavailable")
        said = " ".join(notice(screen).split())
        assert said.startswith("settings.py ") and words in said, said
        assert "unreadable" not in said and "approval is off" in said
        await pilot.press("y")  # approval is off: nothing is decided
        await pilot.pause()
        assert not app.decisions
        await pilot.press("escape")
        await pilot.pause()
    [decision] = app.decisions
    # what happened to the file is told to the model as a fact (the decision's note), not as the user's words
    assert decision.outcome is ConfirmationOutcome.cancel and decision.feedback is None and decision.note is not None
    assert decision.note.startswith(f"file_changed: {details.file_path} ") and words in decision.note
    assert "unreadable" not in decision.note
