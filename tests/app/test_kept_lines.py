"""Lines drawn one by one and kept (the queue, a group's calls): a redraw draws again only the lines that changed and
lays nothing out while the number of lines stays, and the screen shows exactly what a Static with the same text
shows. Each case is a sequence of edits generated from a seed (lines changed, added, removed; styles, wide
characters, lines longer than the widget)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.app import App
from textual.widget import Widget
from textual.widgets import Static

from gemini_tui.app.widgets.kept_lines import KeptLines
from tests.app.test_group_calls import layout_requests
from tests.app.test_keys_first import Painted, painting

WIDTH = 60
WORDS = ["glob", "read_file", "✓", "漢字の行", "running", "… 3 more", "", "x" * 80, "│ output"]
STYLES = ["", "bold", "dim", "italic", "bold red", "green"]


def line(rng: random.Random) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    for _ in range(rng.randint(0, 4)):
        text.append(rng.choice(WORDS) + " ", style=rng.choice(STYLES))
    return text


def joined(lines: list[Text]) -> Text:
    return Text("\n", no_wrap=True, overflow="ellipsis").join(lines)


def edits(seed: int) -> list[tuple[list[Text], bool]]:
    """Texts shown one after the other, each with whether its number of lines is the one before's."""
    rng = random.Random(seed)
    lines = [line(rng) for _ in range(rng.randint(1, 8))]
    texts = [(list(lines), False)]
    for _ in range(14):
        kind = rng.random()
        if kind < 0.6:
            for y in rng.sample(range(len(lines)), rng.randint(1, min(2, len(lines)))):
                lines[y] = line(rng)
            texts.append((list(lines), True))
        elif kind < 0.8 or len(lines) == 1:
            lines.insert(rng.randint(0, len(lines)), line(rng))
            texts.append((list(lines), False))
        else:
            lines.pop(rng.randrange(len(lines)))
            texts.append((list(lines), False))
    return texts


class Side(App[None]):
    CSS = "Static { width: 60; padding: 0 1; }"

    def compose(self) -> Any:
        yield KeptLines(id="kept")
        yield Static(id="plain")


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
async def test_only_changed_lines_are_drawn_and_they_look_as_a_statics(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    layouts = [0]
    app = Side()
    with painting(monkeypatch, layouts) as painted:
        async with app.run_test(size=(WIDTH + 10, 40)) as pilot:
            kept, plain = app.query_one("#kept", KeptLines), app.query_one("#plain", Static)
            previous: list[Text] = []
            for lines, same_count in edits(seed):
                text = joined(lines)
                drawn = kept.drawn_lines
                with layout_requests(monkeypatch, kept) as asked:
                    kept.show_lines(text)
                    plain.update(text.copy())
                    await pilot.pause()
                    await pilot.pause()
                fits = all(one.cell_len <= kept.size.width for one in lines + previous)
                if same_count and fits:  # (a line that wraps is drawn as a Static draws it)
                    assert asked == []  # nothing laid out
                    # the lines drawn anew are the changed ones (a line shown before in the same place is kept)
                    changed = sum(1 for new, old in zip(lines, previous, strict=True)
                                  if (new.plain, new.spans) != (old.plain, old.spans))
                    assert kept.drawn_lines - drawn <= changed
                elif fits and previous:  # a line added or removed: the widget is laid out and drawn whole, yet
                    before = {(old.plain, tuple(old.spans)) for old in previous}  # only new lines are drawn anew
                    new_lines = sum(1 for new in lines if (new.plain, tuple(new.spans)) not in before)
                    assert kept.drawn_lines - drawn <= new_lines
                previous = lines
                assert rows(painted, kept) == rows(painted, plain)
            assert kept.drawn_lines > 0


def rows(painted: Painted, widget: Widget) -> list[list[tuple[str, object]]]:
    region = widget.region
    return painted.cells(region.y, region.bottom, region.x, region.right)
