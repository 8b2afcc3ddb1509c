"""The status line's parts fitted to a width: they give way in order of importance, as the key bar's keys do.
The root path shortens first (its last folders kept), then whole parts are dropped, least important first; a part
is never cut inside, so no number is ever shown half."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

SEPARATOR = "  │  "
ELLIPSIS = "…"
ROOT_MIN = 12  # cells: shorter than this, the root is dropped rather than shortened further


@dataclass(frozen=True)
class StatusPart:
    """One part in display order; `rank` orders dropping (the lowest goes first); a part with `is_root` shortens
    before anything is dropped."""

    text: Text
    rank: int
    is_root: bool = False


def shorten_path(path: str, width: int) -> str:
    """`path` in at most `width` cells, its end kept after an ellipsis, cut at a `/` where one fits."""
    if len(path) <= width:
        return path
    tail = path[len(path) - (width - 1):]
    cut = tail.find("/")
    if 0 <= cut < len(tail) - 1:
        tail = tail[cut:]
    return ELLIPSIS + tail


def _join(parts: list[StatusPart], lead: Text) -> Text:
    line = lead.copy()
    for index, part in enumerate(parts):
        if index:
            line.append(SEPARATOR)
        line.append_text(part.text)
    return line


def fit_status(parts: list[StatusPart], width: int, lead: Text | None = None) -> Text:
    """The parts (after `lead`) in `width` cells: the root shortened, then parts dropped by rank."""
    lead = lead or Text()
    kept = list(parts)
    line = _join(kept, lead)
    if line.cell_len <= width:
        return line
    for index, part in enumerate(kept):
        if part.is_root:
            over = line.cell_len - width
            room = part.text.cell_len - over
            if room >= ROOT_MIN:
                short = Text(shorten_path(part.text.plain, room), style=part.text.style)
                kept[index] = StatusPart(short, part.rank, True)
                return _join(kept, lead)
    for part in sorted(parts, key=lambda p: p.rank):
        kept.remove(part)
        line = _join(kept, lead)
        if line.cell_len <= width:
            break
        # a root dropped to make room may now fit shortened, once other parts went: not worth it (rank order)
    line.truncate(width, overflow="ellipsis")  # only where even the last part is wider than the screen
    return line
