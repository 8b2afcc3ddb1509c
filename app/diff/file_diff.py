"""FileDiff: the change a tool made, as a compact unified diff (the same line-based view as the review modal).
The display registry adds its row (diff sits below displays, so this module does not register itself)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from gemini_tui.app.diff.hunks import hunks_of
from gemini_tui.app.diff.view import DiffView
from gemini_tui.core.ground.display import FileDiff


class FileDiffDisplay(Vertical):
    def __init__(self, diff: FileDiff) -> None:
        super().__init__(classes="display display-diff")
        self.diff = diff
        self.hunks = hunks_of(diff.original_content, diff.new_content, diff.diff)

    def compose(self) -> ComposeResult:
        diff = self.diff
        added = sum(h.added for h in self.hunks)
        removed = sum(h.removed for h in self.hunks)
        yield Static(Content.assemble(
            (diff.file_path or diff.file_name, "bold"), " (new file)" if diff.is_new_file else "",
            "  ", (f"+{added}", "$text-success"), " ", (f"-{removed}", "$text-error"),
        ), classes="display-diff-summary")
        view = DiffView(classes="display-diff-view")
        view.set_diff(self.hunks, diff.file_path or diff.file_name, original=diff.original_content,
                      new=diff.new_content)
        if not self.hunks:
            view.display = False
        yield view

