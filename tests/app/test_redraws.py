"""`update_text` skips the screen's layout only for text whose height is its count of lines (no wrapping)."""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text
from textual.widgets import Static

from gemini_tui.app.widgets.redraws import update_text


@pytest.mark.parametrize(("before", "after", "no_wrap", "laid_out"), [
    ("a\nb", "c\nd", True, False),          # same lines, no wrapping: drawn without a layout
    ("a\nb", "c\nd\ne", True, True),        # one more line
    ("a", "c\nd", True, True),
    ("a\nb", "c " * 200 + "\nd", False, True),  # may wrap: its height is not its count of lines
    ("a\nb", "c\nd", False, True),
])
def test_a_layout_is_asked_for_when_the_height_can_change(before: str, after: str, no_wrap: bool,
                                                          laid_out: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    widget = Static(Text(before, no_wrap=True))
    asked: list[bool] = []

    def spied(content: Any = "", *, layout: bool = True) -> None:  # the decision is what is checked (no app runs)
        asked.append(layout)

    monkeypatch.setattr(widget, "update", spied)
    update_text(widget, Text(after, no_wrap=no_wrap))
    assert asked == [laid_out]
