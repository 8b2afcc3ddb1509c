"""Reading a change before approving it: wrapping, words highlighted, n/p between changes, $EDITOR, Ctrl+C."""

from __future__ import annotations

import random
import string
import sys
from pathlib import Path

from textual.app import App

from gemini_tui.app.diff.view import DiffView
from gemini_tui.app.screens.diff_review import DiffReviewScreen
from gemini_tui.core.ground.confirmation import ConfirmationOutcome, Decision, EditConfirmation
from gemini_tui.core.ground.display import FileDiff
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes.scripted_model import ScriptedModel, call, text


class Harness(App[None]):
    def __init__(self, details: EditConfirmation, on_interrupt: object = None) -> None:
        super().__init__()
        self.details = details
        self.decisions: list[Decision] = []
        self.interrupted = 0

    def on_mount(self) -> None:
        self.push_screen(DiffReviewScreen(self.details, grace_period=0, on_interrupt=self._interrupted),
                         self.decisions.append)

    def _interrupted(self) -> None:
        self.interrupted += 1


def plain(original: str, proposed: str, path: str = "/r/a.json") -> EditConfirmation:
    return EditConfirmation("Confirm Edit: a", path, FileDiff.between(path, original, proposed))


def visible(view: DiffView) -> str:
    return "\n".join(view.render_line(y).text for y in range(view.size.height))


def code_of(view: DiffView, side_text: str) -> str:
    """The code shown for one side in unified view, its wrapped rows joined (gutter cut off)."""
    gutter = view._gutter_width()
    return "".join(line[gutter:] for line in side_text.splitlines())


async def test_generated_long_line_changes_are_on_screen_wrapped_and_after_n_unwrapped() -> None:
    rng = random.Random(14)
    for case in range(8):
        length = rng.choice((150, 900, 6000))
        line = "".join(rng.choices(string.ascii_lowercase + ' ,:"{}', k=length))
        at = rng.randint(0, length - 5)
        marker = f"CHG{case:02d}"
        new = line[:at] + marker + line[at + 5:]
        app = Harness(plain(f"head\n{line}\ntail\n", f"head\n{new}\ntail\n"))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            view = app.screen.query_one(DiffView)
            assert not view.showing_split
            if length <= 150:  # fits in the modal wrapped: the marker is on screen without a key
                assert marker in code_of(view, visible(view))
            for _ in range(3):  # wrapped: the removed line, then the added one (each its own change when tall)
                if marker in code_of(view, visible(view)):
                    break
                await pilot.press("right_square_bracket")
                await pilot.pause()
            assert marker in code_of(view, visible(view)), (case, length, at)
            await pilot.press("w")  # not wrapping: the header says where the change is, ]/[ bring it in view
            await pilot.press("left_square_bracket", "right_square_bracket")
            await pilot.pause()
            assert marker in visible(view), (case, length, at)


async def test_changed_words_are_drawn_in_their_own_style() -> None:
    app = Harness(plain("total = count(items)\n", "total = counter(items)\n", "/r/a.py"))
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.pause()
        view = app.screen.query_one(DiffView)
        added = next(view.render_line(y) for y in range(view.size.height) if "+ total" in view.render_line(y).text)
        styles = {segment.text: segment.style for segment in added if segment.text.strip()}
        word_style = next(style for text, style in styles.items() if "counter" in text)
        plain_style = next(style for text, style in styles.items() if "total" in text)
        assert word_style is not None and plain_style is not None
        assert word_style.bgcolor != plain_style.bgcolor and word_style.bold


async def test_brackets_walk_the_changes_and_follow_the_hunks() -> None:
    old = "".join(f"line {i}\n" for i in range(200))
    new = old.replace("line 20\n", "line twenty\n").replace("line 120\n", "line 120!\n")
    new = new.replace("line 121\n", "line 121!\n")
    app = Harness(plain(old, new, "/r/a.txt"))
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        view = screen.query_one(DiffView)
        assert len(view.changes) == 2 and len(screen.hunks) == 2
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert (screen.change, screen.current, view.current) == (1, 1, 1)
        assert "line 120!" in visible(view)
        await pilot.press("right_square_bracket")  # already at the last: stays
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert (screen.change, screen.current) == (0, 0) and "line twenty" in visible(view)


async def test_ctrl_e_edits_in_the_editor_and_reviews_the_result(tmp_path: Path, monkeypatch) -> None:
    editor = tmp_path / "editor.py"
    editor.write_text("import sys\np = sys.argv[1]\ntext = open(p).read()\n"
                      "open(p, 'w').write(text.replace('proposed', 'edited by hand'))\n")
    monkeypatch.setenv("VISUAL", f"{sys.executable} {editor}")
    app = Harness(plain("original line\n", "proposed line\n", "/r/a.txt"))
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+e")
        for _ in range(100):
            await pilot.pause(0.02)
            if app.screen.edited:
                break
        screen = app.screen
        assert screen.edited and screen.shown_diff.new_content == "edited by hand line\n"
        assert "edited by hand" in visible(screen.query_one(DiffView))
        await pilot.press("y")
        await pilot.pause()
    decision = app.decisions[0]
    assert decision.outcome is ConfirmationOutcome.modify and decision.new_content == "edited by hand line\n"
    assert decision.file_diff is not None and decision.file_diff.original_content == "original line\n"


async def test_ctrl_e_without_an_editor_says_how(monkeypatch) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    app = Harness(plain("a\n", "b\n"))
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert "$EDITOR" in str(app.screen.query_one("#review-notice").render()) and not app._notifications
        assert not app.decisions


async def test_ctrl_c_in_the_review_cancels_it_and_the_turn_and_twice_quits(root: Path, tmp_path: Path) -> None:
    target = root / "notes.txt"
    target.write_text("one\n")
    model = ScriptedModel().add(call("replace", file_path=str(target), old_string="one", new_string="two"))
    app = make_app(root, tmp_path, model.add(text("never")))
    async with app.run_test(size=(100, 24)) as pilot:
        await type_and_send(pilot, "edit it")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffReviewScreen))
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not main_screen(pilot).busy)
        assert not isinstance(app.screen, DiffReviewScreen)
        assert "cancelled" in str(main_screen(pilot).chat.query(".notice").last().render()).lower()
        app._last_interrupt = 0.0  # as if the first press were long ago: this one only warns
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert not app.is_running
    assert target.read_text() == "one\n"


async def test_a_file_changed_under_the_review_is_said_re_reviewed_and_told_to_the_model(tmp_path: Path) -> None:
    from tests.app.test_diff_review import edit_of

    path = tmp_path / "c.txt"
    path.write_text("a\n")
    details = edit_of(path, "b\n")
    app = Harness(details)
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        await pilot.press("u")  # nothing changed yet: said, nothing else
        await pilot.pause()
        assert not screen.file_changed and "made from" in str(screen.query_one("#review-notice").render())
        assert not app._notifications
        path.write_text("changed under the review\n")
        await pilot.press("u")  # re-review now (the watcher may be slower): the new diff is shown
        for _ in range(50):
            await pilot.pause(0.02)
            if screen.file_changed:
                break
        assert screen.file_changed and screen.shown_diff.original_content == "changed under the review\n"
        assert "shows the file as it is" in str(screen.query_one("#review-notice").render())
        await pilot.press("escape")
        await pilot.pause()
    decision = app.decisions[0]
    assert decision.outcome is ConfirmationOutcome.cancel
    assert decision.note is not None and decision.note.startswith("file_changed:") and "c.txt" in decision.note
    assert decision.feedback is None  # the user said nothing: the change on disk is not their message
