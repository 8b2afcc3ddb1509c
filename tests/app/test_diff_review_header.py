"""The review's labels and headers say what is true and fit: Esc is labelled by what it does in each mode, the
summary line and the hunk headers fit every width (shorter wording first, the most important part kept), the
review opens at the first change (sideways too when not wrapped), and the re-read notice says approval is on."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.widgets import Label

from gemini_tui.app.diff.view import DiffView, fit_parts
from gemini_tui.app.screens.diff_review import DiffReviewScreen
from gemini_tui.app.widgets.key_bar import KeyBar, fit_keys
from gemini_tui.core.ground.confirmation import ConfirmationOutcome
from tests.app.app_driver import wait_for
from tests.app.test_diff_review import Harness, edit_of, plain, three_hunks
from tests.app.test_diff_review_file_changed import notice


def test_fit_parts_shortens_the_least_important_first() -> None:
    rng = random.Random(3)
    for _ in range(2000):
        parts = []
        for _ in range(rng.randint(1, 5)):
            wordings = sorted({"x" * rng.randint(1, 30) for _ in range(rng.randint(1, 3))}, key=len, reverse=True)
            if rng.random() < 0.5:
                wordings.append("")
            parts.append(tuple(wordings))
        width = rng.randint(0, 80)
        chosen = fit_parts(parts, width)
        levels = [part.index(text) for part, text in zip(parts, chosen, strict=True)]
        shown = [text for text in chosen if text]
        length = sum(map(cell_len, shown)) + 2 * max(0, len(shown) - 1)
        at_last = [level == len(part) - 1 for part, level in zip(parts, levels, strict=True)]
        if length > width:
            assert all(at_last)  # nothing could shorten further
        for index, level in enumerate(levels):
            if level > 0:  # a part shortened only once every less important one is at its last wording
                assert all(at_last[index + 1:])
        if all(level == 0 for level in levels):
            assert length <= width or all(len(part) == 1 for part in parts)


def deep_change(at: int = 8590) -> tuple[str, str]:
    line = "k" * 9000
    return f"a\n{line[:at]}OLD{line[at + 3:]}\nz\n", f"a\n{line[:at]}NEW{line[at + 3:]}\nz\n"


SCENARIOS = {
    "deep change, not wrapped, scrolled back": (deep_change(), ("w", "left", "left", "left")),
    "deep change, wrapped": (deep_change(), ()),
    "three hunks, one rejected": (three_hunks(), ("space", "j")),
    "three hunks, side by side asked": (three_hunks(), ("s",)),
}


def labels_fit(screen: DiffReviewScreen) -> None:
    row = screen.query_one("#review-summary")
    for label in row.query(Label):
        text = str(label.render())
        assert cell_len(text) <= label.region.width or not text, (text, label.region)
        assert label.region.right <= row.region.right, (text, label.region, row.region)


@pytest.mark.parametrize("width", [40, 60, 72, 80, 100, 120, 160, 200])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
async def test_the_summary_and_hunk_headers_fit_with_what_matters_first(name: str, width: int) -> None:
    (old, new), keys = SCENARIOS[name]
    app = Harness(plain(old, new, "/home/someone/project/src/very/deep/path/minified.js"))
    async with app.run_test(size=(width, 20 if width < 100 else 30)) as pilot:
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DiffReviewScreen)
        view = screen.query_one(DiffView)
        labels_fit(screen)
        status = str(screen.query_one("#review-mode", Label).render())
        assert status.startswith(f"change {screen.change + 1}/{len(view.changes)}")
        hidden = view.hidden_change(screen.current)
        if hidden is not None:  # a change out of view is said on the summary line and in the hunk's header
            column = str(hidden[1] + 1)
            assert f"{'→' if hidden[0] == 'right' else '←'} " in status and column in status
            rows = [view.row_at(int(view.scroll_y) + y)[0] for y in range(view.size.height)]
            headers = [view.render_line(y).text for y, row in enumerate(rows)
                       if row < len(view.rows) and view.rows[row].is_header]
            assert any(column in header and "→" in header for header in headers), headers
        if width >= 160:  # room for all: nothing but the path is shortened
            assert ("hunk " in status) and ("wrapped" in status)
            if hidden is not None:
                assert "beyond the visible width" in status


async def test_escape_is_labelled_by_what_it_does() -> None:
    def label(screen: DiffReviewScreen, key: str) -> str:
        return next(description for shown, description, _ in screen.query_one(KeyBar).entries() if shown == key)

    for keys in (("escape",), ("e", "escape", "escape"), ("r", "escape")):
        app = Harness(plain("a\n", "b\n"))
        async with app.run_test(size=(160, 30)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, DiffReviewScreen)
            assert label(screen, "r") == "Reject with reason…"
            for key in keys:
                mode = screen.mode
                assert label(screen, "esc") == {"review": "Reject", "reason": "Reject without reason",
                                                "edit": "Back to the diff"}[mode]
                await pilot.press(key)
                await pilot.pause()
                if mode == "edit":  # back: the review again, nothing decided
                    assert screen.mode == "review" and not app.decisions
        # every other Esc rejected the edit, as its label said
        assert len(app.decisions) == 1 and app.decisions[0].outcome is ConfirmationOutcome.cancel
    narrow = Harness(plain("a\n", "b\n"))
    async with narrow.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        shown = dict(fit_keys(narrow.screen.query_one(KeyBar).entries(), 60))
        assert shown["esc"] == "Reject" and "back" not in shown.values()


async def test_the_review_opens_at_the_first_change_wrapped_or_not(root: Path) -> None:
    old, new = deep_change(6000)
    path = root / "min.js"
    path.write_text(old)
    app = Harness(edit_of(path, new))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DiffReviewScreen)
        view = screen.query_one(DiffView)

        def on_screen() -> str:
            return "\n".join(view.render_line(y).text for y in range(view.size.height))

        assert view.wrap and "OLD" in on_screen() and screen.change == 0  # the wrapped row holding it in view
        await pilot.press("w")
        await pilot.pause()
        assert view.scroll_x > 0 and "OLD" in on_screen() and "NEW" in on_screen()
        view.scroll_to(x=0, animate=False, immediate=True)  # the user scrolls back to the start of the line
        await pilot.pause()
        assert view.scroll_x == 0 and "NEW" not in on_screen()
        path.write_text(old + "appended elsewhere\n")  # a new diff, shown not wrapped: at its first change
        await pilot.press("u")
        await wait_for(pilot, lambda: screen.shown_diff.original_content.endswith("elsewhere\n"))
        await wait_for(pilot, lambda: screen.approval_off is None)
        await pilot.pause()
        assert not view.wrap and screen.change == 0
        assert view.scroll_x > 0 and "OLD" in on_screen() and "NEW" in on_screen()
        assert "approval is back on" in notice(screen) and "rejects" not in notice(screen)
