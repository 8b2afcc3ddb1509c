"""Old turns of the chat folded into one widget that draws the lines they showed.

A turn is three or four widgets (its prompt, its answer, a card and its header); each costs memory, and every
layout and frame of the chat goes through all of them, so a long session's chat grew heavy and its memory
fragmented. Turns well above the view are drawn once into plain lines and their widgets removed: one widget for
all of them, which looks the same, scrolls the same, and whose text is selected and copied as theirs was. A click
on a card or a thought opens its turn as widgets again (the chat builds them from what each turn kept); a new
width or theme does the same for all of them, to be drawn again."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from gemini_tui.app.widgets.selectable_lines import selectable, with_offsets

if TYPE_CHECKING:
    from collections.abc import Sequence

    from textual.filter import LineFilter
    from textual.selection import Selection

Line = list[Segment]


@dataclass(frozen=True)
class Piece:
    """One widget of a folded turn, as it can be built again: `kind` says what a click on it does ("card",
    "thought", "answer" or "text"); `text` is an answer's Markdown (a double click copies it)."""

    build: Callable[[], Widget]
    kind: str
    text: str = ""


@dataclass(frozen=True)
class DrawnLine:
    """A line as the turn drew it; cells `start` to `end` are a widget's text (what a selection copies), the rest
    borders and padding."""

    segments: Line
    start: int = 0
    end: int = 0
    margin: bool = False  # no widget of the turn drew here (a margin): a selection over it copies no line

    @property
    def text(self) -> str:
        return _text(self.segments, self.start, self.end)


def _text(segments: Line, start: int, end: int) -> str:
    if end <= start:
        return ""
    parts = list(Segment.divide(segments, [start, end]))
    return "".join(segment.text for segment in parts[1]) if len(parts) > 1 else ""


@dataclass(eq=False)
class FoldedTurn:
    """A turn folded: its lines, how to build its widgets again, and the rows each piece drew (`spots`, from the
    turn's first row: first, end, piece index)."""

    lines: list[DrawnLine]
    pieces: list[Piece]
    spots: list[tuple[int, int, int]] = field(default_factory=list)
    gap: int = 0  # blank rows between the turn before it and this one (the turns' margin)


class FoldedTurns(Widget):
    """The chat's oldest turns, drawn from their kept lines (see the module's docstring)."""

    DEFAULT_CSS = "FoldedTurns { height: auto; width: 1fr; }"
    ALLOW_SELECT: ClassVar[bool] = True
    FOCUS_ON_CLICK: ClassVar[bool] = False  # a click opens what it is on (or starts a selection), as before

    class Open(Message):
        """The user clicked piece `piece` of folded turn `turn` (`chain`: 2 for a double click)."""

        def __init__(self, fold: FoldedTurns, turn: int, piece: int, chain: int) -> None:
            super().__init__()
            self.fold = fold
            self.turn = turn
            self.piece = piece
            self.chain = chain

    class Entered(Message):
        """The focus came to the fold (Tab): its cards are to be widgets again, one of them focused."""

        def __init__(self, fold: FoldedTurns) -> None:
            super().__init__()
            self.fold = fold

    class Stale(Message):
        """The lines kept are no longer what the turns would draw (a new width or theme): they are to be built
        again."""

        def __init__(self, fold: FoldedTurns) -> None:
            super().__init__()
            self.fold = fold

    def __init__(self, width: int) -> None:
        super().__init__(classes="folded-turns")
        self.turns: list[FoldedTurn] = []
        self.width_drawn = width
        self._lines: list[DrawnLine | None] = []  # every row; None: a blank row between two turns
        self._owners: list[int] = []  # the turn each row belongs to (-1: between two)
        self._starts: list[int] = []  # each turn's first row
        self._stale = False

    # -- the turns held -------------------------------------------------------------------------------------------
    def add(self, turns: Sequence[FoldedTurn]) -> None:
        self.turns.extend(turns)
        self._laid_out()

    def drop_first(self, count: int) -> None:
        """The `count` oldest turns go (the chat keeps a number of turns)."""
        del self.turns[:count]
        self._laid_out()

    def take_from(self, index: int) -> list[FoldedTurn]:
        """Turn `index` and those after it leave the fold (to be widgets again)."""
        taken, self.turns = self.turns[index:], self.turns[:index]
        self._laid_out()
        return taken

    def _laid_out(self) -> None:
        lines: list[DrawnLine | None] = []
        owners: list[int] = []
        starts: list[int] = []
        for index, turn in enumerate(self.turns):
            if index:
                lines.extend([None] * turn.gap)
                owners.extend([-1] * turn.gap)
            starts.append(len(lines))
            lines.extend(turn.lines)
            owners.extend([index] * len(turn.lines))
        self._lines, self._owners, self._starts = lines, owners, starts
        # Tab reaches folded cards as it reached them as widgets: the fold is a stop while it holds one
        self.can_focus = any(piece.kind == "card" for turn in self.turns for piece in turn.pieces)
        self.refresh(layout=True)

    # -- drawing --------------------------------------------------------------------------------------------------
    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines)

    def get_line_filters(self) -> Sequence[LineFilter]:
        return ()  # the lines kept went through the filters when their widgets drew them

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        line = self._lines[y] if 0 <= y < len(self._lines) else None
        if line is None:  # between two turns: the chat's background, as the chat draws it there
            return Strip.blank(width, Style.from_color(bgcolor=self.rich_style.bgcolor))
        if line.end <= line.start:
            return Strip(line.segments, self.width_drawn)
        if self.text_selection is not None:
            before, text, after = Segment.divide(line.segments, [line.start, line.end, self.width_drawn])
            marked = selectable(self, Strip(text, line.end - line.start), y)
            return Strip([*before, *marked, *after], self.width_drawn)
        return Strip(_with_offsets(line, y, self.width_drawn), self.width_drawn)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The text under the selection, as the turns' widgets would give it: their lines, not the margins
        between them."""
        text = "\n".join("" if line is None else line.text.rstrip() for line in self._lines)
        first = selection.start.y if selection.start is not None else 0
        lines = selection.extract(text).split("\n")
        kept = [part for row, part in enumerate(lines, first)
                if row < len(self._lines) and (line := self._lines[row]) is not None and not line.margin]
        return "\n".join(kept), "\n"

    # -- what the user does -----------------------------------------------------------------------------------
    def on_click(self, event: events.Click) -> None:
        if self.text_selection is not None:  # the end of a drag that selected text, not a click on a card
            return
        row = event.y
        owner = self._owners[row] if 0 <= row < len(self._owners) else -1
        if owner < 0:
            return
        local = row - self._starts[owner]
        for first, end, piece in self.turns[owner].spots:
            if first <= local < end:
                event.stop()
                self.post_message(self.Open(self, owner, piece, event.chain))
                return

    def on_focus(self, event: events.Focus) -> None:
        if not event.from_app_focus:
            self.post_message(self.Entered(self))

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def on_unmount(self) -> None:
        self.app.theme_changed_signal.unsubscribe(self)

    def _theme_changed(self, _theme: object = None) -> None:
        self._went_stale()

    def on_resize(self) -> None:
        if self.size.width != self.width_drawn:
            self._went_stale()

    def _went_stale(self) -> None:
        if not self._stale:
            self._stale = True
            self.post_message(self.Stale(self))


def _with_offsets(line: DrawnLine, y: int, width: int) -> Line:
    """The line with its text's cells marked with their place (as Textual's `Strip.apply_offsets` does)."""
    before, text, after = Segment.divide(line.segments, [line.start, line.end, max(width, line.end)])
    # a press on the border or padding before the text is at its start, as on the widget that drew it
    start = Style.from_meta({"offset": (0, y)})
    return [*(Segment(part.text, part.style + start if part.style else start) for part in before),
            *with_offsets(text, y), *after]


class LineKeeper:
    """Draws turns into lines to keep, sharing one style object among the lines that use it."""

    def __init__(self) -> None:
        self._styles: dict[Style, Style] = {}

    def _plain(self, style: Style | None) -> Style | None:
        if style is None:
            return None
        if style._meta is not None or style._link_id:
            style = style.clear_meta_and_links()
        return self._styles.setdefault(style, style)

    def draw(self, turn: Widget) -> tuple[list[DrawnLine], Region]:
        """The lines `turn` shows, each widget in it drawn over its parent where the screen has it."""
        top = turn.region
        canvas = [Strip.blank(top.width)] * top.height
        inside = [False] * top.height
        for widget in turn.walk_children(Widget, with_self=True):
            region = widget.region.intersection(top)
            if not region or not widget.visible:
                continue
            strips = widget.render_lines(region.translate(-widget.region.offset))
            if not widget.allow_select:  # its text is not to be copied (a thought's title): no marks of place
                strips = [Strip([Segment(text, self._plain(style), control) for text, style, control in strip])
                          for strip in strips]
            x = region.x - top.x
            for row, strip in enumerate(strips, region.y - top.y):
                line = canvas[row]
                canvas[row] = Strip.join([line.crop(0, x), strip, line.crop(x + region.width, top.width)])
                inside[row] = inside[row] or widget is not turn
        return [self._kept(strip, not drawn) for strip, drawn in zip(canvas, inside, strict=True)], top

    def _kept(self, strip: Strip, margin: bool) -> DrawnLine:
        start: int | None = None
        end = x = 0
        for segment in strip:
            width = segment.cell_length
            style = segment.style
            if style is not None and style._meta is not None and "offset" in style.meta:
                start = x if start is None else start
                end = x + width
            x += width
        segments = [Segment(text, self._plain(style), control) for text, style, control in strip]
        return DrawnLine(list(Segment.simplify(segments)), start or 0, end, margin)


def fold_spots(turn: Widget, top: Region, kinds: Sequence[str]) -> list[tuple[int, int, int]]:
    """The rows of `turn` (from its first) that its children drew, for those a click does something with."""
    spots: list[tuple[int, int, int]] = []
    for index, (child, kind) in enumerate(zip(turn.children, kinds, strict=True)):
        region: Any = child.region
        if kind == "text" or not region:
            continue
        first = region.y - top.y
        end = first + 1 if kind == "thought" else region.bottom - top.y  # a thought opens from its title
        spots.append((first, end, index))
    return spots
