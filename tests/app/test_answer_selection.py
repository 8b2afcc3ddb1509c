"""An answer's text can be selected with the mouse and copied: every drawn cell tells Textual its place in the text
(with a selection highlighted or not), and the selection gives back exactly the text drawn under it."""

from __future__ import annotations

import random

from textual.app import App, ComposeResult
from textual.geometry import Offset
from textual.selection import Selection

from gemini_tui.app.widgets.answer import AnswerBlock

ANSWER = ("The **scheduler** runs each call in order; see `core/session/scheduler.py` for the queue.\n\n"
          "- one item with a [link](https://example.com/x)\n- two items, *soft* and ~~old~~\n\n"
          "A last paragraph long enough to wrap at the width of this small page, twice or more, so that the "
          "selection crosses lines.")


class Page(App[None]):
    def compose(self) -> ComposeResult:
        yield AnswerBlock(ANSWER)


def drawn_text(widget: AnswerBlock) -> list[str]:
    return ["".join(segment.text for segment in strip).rstrip() for strip in widget.lines_for(widget.size.width)]


async def test_every_cell_knows_its_place_with_or_without_a_selection() -> None:
    app = Page()
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        widget = app.query_one(AnswerBlock)
        region = widget.content_region
        lines = drawn_text(widget)
        rng = random.Random(3)
        cells = [(x, y) for y, line in enumerate(lines) for x in range(len(line)) if line[x] != " "]
        for selected in (None, Selection(Offset(4, 0), Offset(12, 3)), Selection(None, None)):
            app.screen.selections = {widget: selected} if selected else {}
            await pilot.pause()
            for x, y in rng.sample(cells, 40):
                found, place = app.screen._compositor.get_widget_and_offset_at(region.x + x, region.y + y)
                assert found is widget and place == Offset(x, y), (selected, x, y)


async def test_a_selection_gives_the_text_drawn_under_it() -> None:
    app = Page()
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        widget = app.query_one(AnswerBlock)
        lines = drawn_text(widget)
        rng = random.Random(5)
        for _ in range(30):
            y1 = rng.randrange(len(lines))
            y2 = rng.randrange(y1, len(lines))
            x1 = rng.randrange(len(lines[y1]) + 1)
            x2 = rng.randrange(len(lines[y2]) + 1) if y2 > y1 else rng.randrange(x1, len(lines[y1]) + 1)
            got = widget.get_selection(Selection(Offset(x1, y1), Offset(x2, y2)))
            assert got is not None
            middle = lines[y1 + 1:y2]
            expected = lines[y1][x1:x2] if y1 == y2 else "\n".join([lines[y1][x1:], *middle, lines[y2][:x2]])
            assert got[0] == expected
        assert "scheduler runs each call" in widget.get_selection(Selection(None, None))[0]  # type: ignore[index]
