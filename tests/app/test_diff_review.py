"""The diff-review modal, driven from the keyboard in a harness app: each key's Decision, hunks, grace, watching."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from textual.app import App
from textual.widgets import Input, Label

from gemini_tui.app.diff.view import DiffView
from gemini_tui.app.screens.diff_review import CHANGED_NOTICE, DiffReviewScreen, ProposalEditor
from gemini_tui.core.ground.confirmation import ConfirmationOutcome, Decision, EditConfirmation
from gemini_tui.core.ground.display import FileDiff


class Harness(App[None]):
    def __init__(self, details: EditConfirmation, grace: float = 0.0) -> None:
        super().__init__()
        self.details = details
        self.grace = grace
        self.decisions: list[Decision] = []

    def on_mount(self) -> None:
        self.push_screen(DiffReviewScreen(self.details, grace_period=self.grace), self.decisions.append)


def numbered(n: int) -> str:
    return "".join(f"line {i}\n" for i in range(1, n + 1))


def three_hunks() -> tuple[str, str]:
    old = numbered(60).splitlines(keepends=True)
    new = list(old)
    new[1] = "two\n"
    new[25] = "twenty-six\n"
    new[50] = "fifty-one\n"
    return "".join(old), "".join(new)


def edit_of(path: Path, proposed: str) -> EditConfirmation:
    """Like write_file's details: the diff from what is on disk to the proposal, recomputed on refresh."""

    async def refresh() -> FileDiff:
        return FileDiff.between(str(path), path.read_text(), proposed)

    return EditConfirmation(f"Confirm Edit: {path.name}", str(path),
                            FileDiff.between(str(path), path.read_text(), proposed), refresh)


def plain(original: str, proposed: str, path: str = "/r/a.py") -> EditConfirmation:
    return EditConfirmation("Confirm Edit: a.py", path, FileDiff.between(path, original, proposed))


async def run_keys(details: EditConfirmation, *keys: str, grace: float = 0.0,
                   size: tuple[int, int] = (100, 40)) -> tuple[Harness, Decision | None]:
    app = Harness(details, grace)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
        await pilot.pause()
    return app, app.decisions[0] if app.decisions else None


async def test_y_allows_once_with_the_shown_diff() -> None:
    details = plain("a\n", "b\n")
    _, decision = await run_keys(details, "y")
    assert decision == Decision(ConfirmationOutcome.proceed_once, file_diff=details.file_diff)


async def test_a_allows_for_the_session() -> None:
    _, decision = await run_keys(plain("a\n", "b\n"), "a")
    assert decision is not None and decision.outcome is ConfirmationOutcome.proceed_always


async def test_escape_rejects() -> None:
    _, decision = await run_keys(plain("a\n", "b\n"), "escape")
    assert decision is not None and decision.outcome is ConfirmationOutcome.cancel and decision.feedback is None


async def test_r_then_reason_goes_to_the_model() -> None:
    _, decision = await run_keys(plain("a\n", "b\n"), "r", *"use tabs", "enter")
    assert decision is not None
    assert (decision.outcome, decision.feedback) == (ConfirmationOutcome.cancel, "use tabs")


async def test_r_then_escape_rejects_without_reason() -> None:
    app = Harness(plain("a\n", "b\n"))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("r")
        assert isinstance(app.focused, Input)
        await pilot.press("y")  # typed into the reason, not an approval
        assert not app.decisions
        await pilot.press("escape")
        await pilot.pause()
    assert app.decisions[0].outcome is ConfirmationOutcome.cancel and app.decisions[0].feedback is None


async def test_edit_then_apply() -> None:
    app = Harness(plain("a\n", "b\n"))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("e")
        editor = app.screen.query_one(ProposalEditor)
        assert editor.text == "b\n" and app.focused is editor
        editor.load_text("c\n")
        await pilot.press("ctrl+s")
        await pilot.pause()
    # no feedback: the scheduler already tells the model the user modified the content (said once, not twice)
    assert app.decisions == [Decision(ConfirmationOutcome.modify, new_content="c\n", feedback=None,
                                      file_diff=app.details.file_diff)]


async def test_edit_escape_returns_to_the_diff() -> None:
    app = Harness(plain("a\n", "b\n"))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("e", "x", "escape")
        screen = app.screen
        assert isinstance(screen, DiffReviewScreen) and screen.mode == "review"
        assert screen.view.display and not screen.query_one(ProposalEditor).display
        await pilot.press("y")
        await pilot.pause()
    assert app.decisions[0].outcome is ConfirmationOutcome.proceed_once


async def test_reject_one_hunk_writes_only_the_others() -> None:
    original, proposed = three_hunks()
    details = plain(original, proposed)
    _, decision = await run_keys(details, "j", "space", "y")
    assert decision is not None and decision.outcome is ConfirmationOutcome.modify
    assert decision.new_content is not None
    assert "two\n" in decision.new_content and "fifty-one\n" in decision.new_content
    assert "line 26\n" in decision.new_content and "twenty-six" not in decision.new_content
    assert decision.feedback is not None and "hunk(s) 2 (line 26)" in decision.feedback


async def test_toggling_twice_accepts_again_and_arrows_move() -> None:
    original, proposed = three_hunks()
    _, decision = await run_keys(plain(original, proposed), "down", "down", "up", "space", "space", "y")
    assert decision is not None and decision.outcome is ConfirmationOutcome.proceed_once


async def test_all_hunks_rejected_is_a_cancel() -> None:
    original, proposed = three_hunks()
    _, decision = await run_keys(plain(original, proposed), "space", "j", "space", "j", "space", "y")
    assert decision is not None and decision.outcome is ConfirmationOutcome.cancel
    assert decision.feedback is not None and "every hunk" in decision.feedback


async def test_keys_within_the_grace_period_are_ignored() -> None:
    # A long grace period, so that a slow (loaded) machine still types inside it; then wait for it to end.
    app = Harness(plain("a\n", "b\n"), grace=3.0)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("y", "a", "escape", "space")
        await pilot.pause()
        assert not app.decisions and not app.screen.rejected
        # every key typed re-armed the wait: it ends a grace period after the last one
        await asyncio.sleep(max(0.0, app.screen.guard.ready_at - time.monotonic()) + 0.05)
        await pilot.press("y")
        await pilot.pause()
    assert app.decisions[0].outcome is ConfirmationOutcome.proceed_once


async def test_width_picks_the_view_and_s_toggles() -> None:
    original, proposed = three_hunks()
    for width, split in ((100, False), (160, True)):
        app = Harness(plain(original, proposed))
        async with app.run_test(size=(width, 40)) as pilot:
            view = app.screen.query_one(DiffView)
            assert view.split is split
            await pilot.press("v")
            assert view.split is not split


async def test_rows_show_line_numbers_and_current_hunk() -> None:
    original, proposed = three_hunks()
    app = Harness(plain(original, proposed))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        view = app.screen.query_one(DiffView)
        lines = [view.render_line(y).text for y in range(8)]
        assert lines[0].startswith("▶ @@ -1,5 +1,5 @@") and "hunk 1/3" in lines[0]
        assert any(" 2    - line 2" in line for line in lines)
        assert any("    2 + two" in line for line in lines)
        await pilot.press("v")
        await pilot.pause()
        row = next(view.render_line(y).text for y in range(8) if "two" in view.render_line(y).text)
        assert "line 2" in row and "two" in row  # old and new side by side on one row


async def test_change_on_disk_is_shown_before_approval(root: Path) -> None:
    path = root / "a.txt"
    path.write_text("one\ntwo\n")
    details = edit_of(path, "one\nTWO\n")
    app = Harness(details)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, DiffReviewScreen)
        await asyncio.sleep(0.3)  # let the watcher start
        path.write_text("zero\none\ntwo\n")
        for _ in range(60):
            await asyncio.sleep(0.05)
            if screen.shown_diff.original_content.startswith("zero"):
                break
        assert screen.shown_diff.original_content == "zero\none\ntwo\n"
        notice = screen.query_one("#review-notice")
        assert notice.display and CHANGED_NOTICE.format(path="a.txt") in str(notice.render())
        await pilot.press("y")  # approval is off until the file is re-read with u
        await pilot.pause()
        assert not app.decisions
        await pilot.press("u", "y")
        await pilot.pause()
    decision = app.decisions[0]
    assert decision.file_diff is not None and decision.file_diff.original_content == "zero\none\ntwo\n"


async def test_approval_rereads_the_file_even_without_a_watcher(root: Path) -> None:
    path = root / "b.txt"
    path.write_text("a\n")
    watched = edit_of(path, "b\n")
    details = EditConfirmation(watched.title, "", watched.file_diff, watched.refresh)  # no path: no watcher
    app = Harness(details)
    async with app.run_test(size=(100, 40)) as pilot:
        path.write_text("changed\n")
        await pilot.press("y")
        await pilot.pause()
        assert not app.decisions
        assert app.screen.shown_diff.original_content == "changed\n"
        await pilot.press("y")  # approval is off since the change was seen: nothing until u
        await pilot.pause()
        assert not app.decisions
        await pilot.press("u", "y")
        await pilot.pause()
    assert app.decisions[0].file_diff.original_content == "changed\n"


async def test_ten_thousand_line_diff_opens_and_scrolls() -> None:
    original = numbered(10_000)
    proposed = "".join(f"line {i}{' changed' if i % 20 == 0 else ''}\n" for i in range(1, 10_001))
    app = Harness(plain(original, proposed, "/r/big.py"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert len(screen.hunks) > 100
        await pilot.press("pagedown", "pagedown")
        for _ in range(10):
            await pilot.press("j")
        await pilot.pause()
        view = screen.query_one(DiffView)
        assert view.current == 10 and view.scroll_y > 0


def screen_text(view: DiffView) -> str:
    return "\n".join(view.render_line(y).text for y in range(view.size.height))


async def test_long_lines_wrap_by_default_so_the_change_is_on_screen() -> None:
    long_old = "x = '" + "a" * 200 + "END_OLD'\n"
    long_new = "x = '" + "a" * 200 + "END_NEW'\n"
    app = Harness(plain(long_old, long_new))
    async with app.run_test(size=(160, 30)) as pilot:
        view = app.screen.query_one(DiffView)
        await pilot.pause()
        assert view.wrap and view.showing_split and view.virtual_size.width <= view.size.width
        # every character of both lines is on screen, in order, across the wrapped rows of each half
        half, gutter = view.view_width // 2, view._gutter_width()  # the halves are as wide as each other
        lines = [view.render_line(y).text for y in range(1, view.virtual_size.height)]
        assert "".join(line[gutter:half] for line in lines).rstrip() == long_old.rstrip("\n")
        assert "".join(line[half + gutter:2 * half] for line in lines).rstrip() == long_new.rstrip("\n")


async def test_not_wrapping_falls_back_to_unified_and_n_brings_the_change_into_view() -> None:
    long_old = "x = '" + "a" * 200 + "END_OLD'\n"
    long_new = "x = '" + "a" * 200 + "END_NEW'\n"
    app = Harness(plain(long_old, long_new))
    async with app.run_test(size=(160, 30)) as pilot:
        view = app.screen.query_one(DiffView)
        await pilot.press("w")
        await pilot.pause()
        # halves of 160 columns would hide the change: side by side asked, unified shown, and said so
        assert view.split and not view.showing_split
        assert "side by side would hide changes" in str(app.screen.query_one("#review-mode", Label).render())
        # w keeps the current change in view: scrolled sideways to it
        text = screen_text(view)
        assert view.scroll_x > 0 and "END_OLD" in text and "END_NEW" in text
        await pilot.press("left", "left", "left")
        await pilot.pause()
        assert view.scroll_x == 0 and "END_NEW" not in screen_text(view)
        assert "change at column 210, beyond the visible width" in screen_text(view)
        await pilot.press("right_square_bracket")
        await pilot.pause()
        text = screen_text(view)
        assert view.scroll_x > 0 and "END_OLD" in text and "END_NEW" in text
        assert "beyond the visible width" not in text
        await pilot.press("left", "left", "left")
        await pilot.press("v")  # unified asked: stays unified
        await pilot.pause()
        assert not view.split and not view.showing_split


async def test_change_through_a_symlink_is_seen(root: Path) -> None:
    (root / "real").mkdir()
    real = root / "real" / "target.txt"
    real.write_text("a\n")
    link = root / "link.txt"
    link.symlink_to(real)
    app = Harness(edit_of(link, "b\n"))
    async with app.run_test(size=(100, 40)):
        screen = app.screen
        await asyncio.sleep(0.3)
        real.write_text("changed\n")
        for _ in range(60):
            await asyncio.sleep(0.05)
            if screen.shown_diff.original_content == "changed\n":
                break
        assert screen.shown_diff.original_content == "changed\n"


async def test_a_change_re_arms_the_grace_period(root: Path) -> None:
    path = root / "c.txt"
    path.write_text("a\n")
    watched = edit_of(path, "b\n")
    app = Harness(EditConfirmation(watched.title, "", watched.file_diff, watched.refresh), grace=0.4)
    async with app.run_test(size=(100, 40)) as pilot:
        await asyncio.sleep(0.5)
        path.write_text("changed\n")
        await pilot.press("y")  # re-reads, shows the new diff, turns approval off and re-arms the grace period
        await pilot.press("u")  # typed ahead: ignored
        await pilot.pause()
        assert not app.decisions and app.screen.shown_diff.original_content == "changed\n"
        assert app.screen.approval_off == "changed"
        await asyncio.sleep(0.5)
        await pilot.press("u")  # re-read: approval back on, after the grace period again
        await pilot.press("y")  # typed ahead: ignored
        await pilot.pause()
        assert not app.decisions and app.screen.approval_off is None
        await asyncio.sleep(0.5)
        await pilot.press("y")
        await pilot.pause()
    assert app.decisions[0].file_diff.original_content == "changed\n"


async def test_change_while_editing_is_shown_before_the_edit_applies(root: Path) -> None:
    path = root / "d.txt"
    path.write_text("a\n")
    watched = edit_of(path, "b\n")
    app = Harness(EditConfirmation(watched.title, "", watched.file_diff, watched.refresh))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("e")
        editor = app.screen.query_one(ProposalEditor)
        editor.load_text("mine\n")
        path.write_text("theirs\n")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not app.decisions
        assert "changed on disk while you edited" in str(app.screen.query_one("#review-notice").render())
        assert editor.text == "mine\n" and editor.display  # the user's text is kept
        assert not app.screen.query_one(DiffView).display
        await pilot.press("ctrl+s")  # approval is off: nothing but the notice again
        await pilot.pause()
        assert not app.decisions and "u re-reads the file" in str(app.screen.query_one("#review-notice").render())
        await pilot.press("escape", "u", "e")  # the new diff, re-read, then back to the kept text
        await pilot.pause()
        assert editor.text == "mine\n" and editor.display
        await pilot.press("ctrl+s")  # now knowingly applied over the change they were shown
        await pilot.pause()
    decision = app.decisions[0]
    assert decision.outcome is ConfirmationOutcome.modify and decision.new_content == "mine\n"
    assert decision.file_diff.original_content == "theirs\n"


async def test_clicking_a_hunk_makes_it_current() -> None:
    original, proposed = three_hunks()
    app = Harness(plain(original, proposed))
    async with app.run_test(size=(100, 40)) as pilot:
        view = app.screen.query_one(DiffView)
        row = view.hunk_rows[1]
        await pilot.click(DiffView, offset=(10, row))
        await pilot.press("space", "y")
        await pilot.pause()
    decision = app.decisions[0]
    assert decision.outcome is ConfirmationOutcome.modify and "hunk(s) 2" in (decision.feedback or "")


async def test_highlighting_sees_the_whole_file() -> None:
    original = 'def f():\n    """Doc\n    inside the docstring\n    """\n    return 1\n'
    proposed = original.replace("return 1", "return 2")
    app = Harness(plain(original, proposed, "/r/f.py"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        view = app.screen.query_one(DiffView)
        inside = next(line for line in view.hunks[0].lines if line.text.strip() == "inside the docstring")
        content = view._highlighted(inside, "old")
        assert content.plain == "    inside the docstring"
        assert any("text-success" in str(span.style) for span in content.spans)  # a string, not names
