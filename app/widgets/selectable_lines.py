"""Lines a widget draws itself (line API) made selectable with the mouse, as Textual's own text widgets are."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.segment import Segment
from textual.strip import Strip

if TYPE_CHECKING:
    from textual.widget import Widget


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
