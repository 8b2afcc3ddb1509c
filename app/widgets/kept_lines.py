"""Text of whole lines that changes a few lines at a time (the queue, a subagent group's calls), drawn a line at a
time: each line's strip is kept, a redraw draws again only the lines whose text changed, and when the screen is
laid out again (the chat grew, the widget moved) its unchanged lines are not drawn again.

With 32 agents at work the queue and the groups change many times a second; drawn as one Static they cost a few
ms each time, which a key typed then waited for."""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.style import Style
from textual.visual import Visual, visualize
from textual.widgets import Static

LineKey = tuple[Any, ...]


def line_key(line: Text) -> LineKey:
    """What a line's strip depends on, besides the widget's width and style: its characters and their styles."""
    return line.plain, tuple(line.spans), str(line.style), line.overflow, line.justify


def at_row(strip: Strip, y: int) -> Strip:
    """A line drawn alone (as row 0) as the row `y` of its text: each cell says where it is (text selection reads
    it), as a Static's rows do."""
    if y == 0:
        return strip
    segments: list[Segment] = []
    for text, style, control in strip:
        if style is not None and (offset := style.meta.get("offset")) is not None:
            style = style + RichStyle.from_meta({"offset": (offset[0], y)})
        segments.append(Segment(text, style, control))
    return Strip(segments, strip.cell_length)


class KeptLines(Static):
    """A Static shown through `show_lines(text)`. While every line fits the width, each line is a row of its own,
    drawn and kept on its own; else (a line wraps) it is drawn as a Static draws it."""

    def __init__(self, content: Any = "", **kwargs: Any) -> None:
        super().__init__(content, **kwargs)
        self._lines: list[Text] = []
        self._keys: list[LineKey] = []
        self._strips: dict[LineKey, Strip] = {}  # each line drawn as row 0
        self._rows: dict[tuple[LineKey, int], Strip] = {}  # and as the row it is shown at
        self._widest = 0
        self._drawn_for: tuple[int, Style] | None = None  # the width and style the kept strips were drawn for
        self.drawn_lines = 0  # lines drawn anew, not taken from what is kept (a test reads it)

    def show_lines(self, text: Text) -> None:
        """`text` is shown. The same number of lines: only the changed ones are drawn, no layout of the screen."""
        lines = list(text.split("\n", allow_blank=True))
        keys = [line_key(line) for line in lines]
        same_count = len(keys) == len(self._keys)
        changed = [y for y, (old, new) in enumerate(zip(self._keys, keys, strict=False)) if old != new]
        self._lines, self._keys = lines, keys
        self._widest = max(line.cell_len for line in lines)
        if not self._widest <= self.size.width != 0:  # a line wraps (or it has no width yet): as a Static
            self._keys = []  # the next text is not compared with this one
            self.update(text)
            return
        if not same_count:
            self.update(text)  # its height changed: the screen is laid out, the kept strips serve the same lines
            return
        if not changed:
            return
        # the content as a Static holds it (its height, a selection's text), without asking for a full redraw
        self._Static__content = text  # type: ignore[attr-defined]  # Static keeps it under this name
        self._Static__visual = None  # type: ignore[attr-defined]
        width = self.size.width
        self.refresh(*(Region(0, y, width, 1) for y in changed))

    def render_line(self, y: int) -> Strip:
        width, style = self.size.width, self.visual_style
        if not self._keys or self._widest > width or self.text_selection is not None:
            return super().render_line(y)  # drawn as a Static (a line wraps; a selection is drawn over it)
        self._dirty_regions.clear()  # a Static renders all its lines when any is dirty: these are drawn one by one
        if (width, style) != self._drawn_for:
            self._strips.clear()
            self._rows.clear()
            self._drawn_for = (width, style)
        if y >= len(self._lines):
            return Strip.blank(width, style.rich_style)
        key = self._keys[y]
        if (row := self._rows.get((key, y))) is not None:
            return row
        strip = self._strips.get(key)
        if strip is None:
            self.drawn_lines += 1
            strip = Visual.to_strips(self, visualize(self, self._lines[y]), width, 1, style)[0]
            if len(self._strips) > 4 * len(self._keys) + 16:  # lines long gone are not kept
                self._strips.clear()
                self._rows.clear()
            self._strips[key] = strip
        row = self._rows[key, y] = at_row(strip, y)
        return row
