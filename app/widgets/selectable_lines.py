"""Lines a widget draws itself (line API) made selectable with the mouse, as Textual's own text widgets are."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

if TYPE_CHECKING:
    from collections.abc import Iterable

    from textual.widget import Widget


def with_offsets(segments: Iterable[Segment], y: int) -> list[Segment]:
    """Each segment marked with its place on line `y` (in characters from 0, as Textual's `Strip.apply_offsets`
    marks them), without a Strip made on the way: a Strip brings seven caches, and lines are drawn every frame."""
    x = 0
    marked: list[Segment] = []
    for text, style, _control in segments:
        offset = Style.from_meta({"offset": (x, y)})
        marked.append(Segment(text, style + offset if style else offset))
        x += len(text)
    return marked


def selectable_line(widget: Widget, segments: list[Segment], width: int, y: int) -> Strip:
    """Line `y` of `widget`'s text as one Strip, each cell marked with its place, the selected part highlighted."""
    if widget.text_selection is None:
        return Strip(with_offsets(segments, y), width)
    return selectable(widget, Strip(segments, width), y)


def selectable(widget: Widget, strip: Strip, y: int) -> Strip:
    """Each cell of `strip` (line `y`) marked with its place (Textual's mouse selection reads it); the part of it
    selected highlighted."""
    selection = widget.text_selection
    if selection is not None and (span := selection.get_span(y)) is not None:
        start, end = span
        end = strip.cell_length if end == -1 else end
        style = widget.screen.get_component_rich_style("screen--selection")
        chosen = Strip(list(Segment.apply_style(list(strip.crop(start, end)), post_style=style)))
        strip = Strip.join([strip.crop(0, start), chosen, strip.crop(end, strip.cell_length)])
    return strip.apply_offsets(0, y)  # after the cuts: each piece is marked with its own place
