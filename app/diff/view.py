"""A line-based diff widget: unified or side by side, highlighted, with line numbers and a current hunk.

It renders only the rows on screen (Line API), so a 10,000-line diff opens as fast as a 10-line one; wrapping
costs one length per line to lay out, and a wrapped line is drawn once for all the screen rows it takes."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from typing import ClassVar

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_for_filename
from pygments.util import ClassNotFound
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.content import Content, Span
from textual.geometry import Size
from textual.highlight import HighlightTheme
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from gemini_tui.app.diff.hunks import DiffLine, Hunk, LineKind
from gemini_tui.app.diff.word_diff import WordDiff, word_diff
from gemini_tui.core.ground.terminal_text import clean_terminal_text


@dataclass(frozen=True)
class Row:
    """One screen row: a hunk header (`left` and `right` None) or a line (unified: `left` only)."""

    hunk: int
    left: DiffLine | None = None
    right: DiffLine | None = None

    @property
    def is_header(self) -> bool:
        return self.left is None and self.right is None


def unified_rows(hunks: Sequence[Hunk]) -> list[Row]:
    rows: list[Row] = []
    for hunk in hunks:
        rows.append(Row(hunk.index))
        rows.extend(Row(hunk.index, line) for line in hunk.lines)
    return rows


def split_rows(hunks: Sequence[Hunk]) -> list[Row]:
    """Side by side: context on both sides; each run of removed lines paired with the added run after it."""
    rows: list[Row] = []
    for hunk in hunks:
        rows.append(Row(hunk.index))
        removed: list[DiffLine] = []
        added: list[DiffLine] = []
        for line in hunk.lines:
            if line.kind is LineKind.context:
                _pair(rows, hunk.index, removed, added)
                rows.append(Row(hunk.index, line, line))
            elif line.kind is LineKind.removed:
                if added:
                    _pair(rows, hunk.index, removed, added)
                removed.append(line)
            else:
                added.append(line)
        _pair(rows, hunk.index, removed, added)
    return rows


def _pair(rows: list[Row], hunk: int, removed: list[DiffLine], added: list[DiffLine]) -> None:
    for k in range(max(len(removed), len(added))):
        rows.append(Row(hunk, removed[k] if k < len(removed) else None, added[k] if k < len(added) else None))
    removed.clear()
    added.clear()


@lru_cache(maxsize=64)
def lexer_for(path: str) -> Lexer | None:
    try:
        return get_lexer_for_filename(path, stripnl=False, ensurenl=False, tabsize=4)
    except ClassNotFound:
        return None


def _token_spans(text: str, lexer: Lexer) -> list[Span]:
    """Theme styles for the lexer's tokens of `text` (a token type falls back to its parent's style)."""
    spans: list[Span] = []
    start = 0
    styles = HighlightTheme.STYLES
    for token_type, token in lexer.get_tokens(text):
        end = start + len(token)
        kind = token_type
        while kind is not None:
            if style := styles.get(kind):
                spans.append(Span(start, end, style))
                break
            kind = kind.parent
        start = end
    return spans


def text_width(text: str) -> int:
    """Cells taken by a line once its tabs are expanded (the common ASCII case without measuring each char)."""
    text = text.expandtabs(4)
    return len(text) if text.isascii() else cell_len(text)


def highlight_line(text: str, lexer: Lexer | None) -> Content:
    """One line highlighted on its own: cheap and lazy (a string spanning lines loses its colour, rarely)."""
    text = clean_terminal_text(text).expandtabs(4)
    if lexer is None or not text:
        return Content(text)
    return Content(text, spans=_token_spans(text, lexer))


def highlight_text(text: str, lexer: Lexer) -> list[Content]:
    """A whole file highlighted at once, one Content per line (multi-line strings keep their colour)."""
    text = clean_terminal_text(text).expandtabs(4)
    return Content(text, spans=_token_spans(text, lexer)).split("\n", allow_blank=True)


NO_NEWLINE = " ⏎ no newline at end of file"
FULL_HIGHLIGHT_MAX_LINES = 1000  # about 0.06 s of lexing per side; bigger files are highlighted line by line, lazily
MIN_HALF_CODE = 24  # side by side needs this many code columns per half, or it falls back to unified
HINT_LINES = 200  # the "change beyond the width" hint looks at this many changed lines per hunk
STRIP_CACHE = 512  # rendered lines kept (a wrapped line is drawn once for all its screen rows)


@dataclass(frozen=True)
class Change:
    """One run of changed lines: its first row and its hunk."""

    row: int
    hunk: int


def changes_of(rows: Sequence[Row], heights: Sequence[int] | None = None, tall: int = 4) -> list[Change]:
    """The runs of changed rows; a wrapped row `tall` screen lines or more is a change of its own, so that
    n reaches the added line of a long line pair and not only the removed one."""
    context = LineKind.context
    changes: list[Change] = []
    previous_changed = previous_tall = False
    for index, row in enumerate(rows):
        left, right = row.left, row.right
        changed = (left is not None and left.kind is not context) or (right is not None and right.kind is not context)
        is_tall = heights is not None and heights[index] >= tall
        if changed and (not previous_changed or is_tall or previous_tall):
            changes.append(Change(index, row.hunk))
        previous_changed, previous_tall = changed, is_tall
    return changes


def partners_of(hunks: Sequence[Hunk]) -> dict[int, DiffLine]:
    """Each removed line paired with the added line at the same place in the run that replaced it (by id)."""
    partners: dict[int, DiffLine] = {}
    for hunk in hunks:
        removed: list[DiffLine] = []
        added: list[DiffLine] = []
        for line in (*hunk.lines, None):
            if line is not None and line.kind is LineKind.removed and not added:
                removed.append(line)
            elif line is not None and line.kind is LineKind.added:
                added.append(line)
            else:
                for old, new in zip(removed, added, strict=False):
                    partners[id(old)] = new
                    partners[id(new)] = old
                removed, added = ([line] if line is not None and line.kind is LineKind.removed else []), []
    return partners


class DiffView(ScrollView, can_focus=False):
    """The rows of a diff. The owner sets the hunks, the current hunk and the rejected hunks.

    Long lines wrap (`wrap`, the default) or scroll sideways; words that changed inside a line are
    highlighted; side by side shows as unified when its halves would be too narrow to show the changes."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff-view--header", "diff-view--header-current", "diff-view--lineno", "diff-view--marker",
        "diff-view--added", "diff-view--removed", "diff-view--context", "diff-view--rejected",
        "diff-view--blank", "diff-view--added-word", "diff-view--removed-word", "diff-view--hint",
    }

    split: reactive[bool] = reactive(False)  # what the user asked for; `showing_split` is what is drawn
    wrap: reactive[bool] = reactive(True)
    current: reactive[int] = reactive(-1)

    class HunkClicked(Message):
        def __init__(self, hunk: int) -> None:
            super().__init__()
            self.hunk = hunk

    class Relaid(Message):
        """A new size laid the rows out anew (lines wrap at another width, fewer rows fit): what was in view may
        not be."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.hunks: tuple[Hunk, ...] = ()
        self.rejected: frozenset[int] = frozenset()
        self.path = ""
        self.rows: list[Row] = []
        self.hunk_rows: list[int] = []  # first row (the header) of each hunk
        self.changes: list[Change] = []
        self.showing_split = False
        self._starts: list[int] | None = None  # first screen line of each row when wrapping (None: one each)
        self._layout_key: tuple[object, ...] = ()
        self._laid_width = self._laid_height = 0  # what the rows were last laid out for
        self._lexer: Lexer | None = None
        self._highlight_cache: dict[tuple[str, int], Content] = {}
        self._word_cache: dict[int, WordDiff] = {}
        self._strip_cache: dict[tuple[int, str, bool, int], Strip] = {}
        self._offsets_cache: dict[int, tuple[Strip, list[int]]] = {}  # a drawn line's segments' cell offsets
        self._hint_cache: dict[int, tuple[int, int] | None] = {}
        self._partners: dict[int, DiffLine] = {}
        self._lengths: dict[int, int] = {}  # cells of each line (by id), with its no-newline marker
        self._number_width = 1
        self._code_width = 0
        self._changed_width = 0
        self._no_newline_room = 0
        self._texts: dict[str, str | None] = {}
        self._full: dict[str, list[Content] | None] = {}

    def set_diff(self, hunks: Sequence[Hunk], path: str, *, original: str | None = None,
                 new: str | None = None) -> None:
        """`original` and `new` (the whole texts) are optional: with them, highlighting sees whole files."""
        self.hunks = tuple(hunks)
        self.path = path
        self._lexer = lexer_for(path)
        self._highlight_cache.clear()
        self._word_cache.clear()
        self._strip_cache.clear()
        self._hint_cache.clear()
        self._partners = partners_of(self.hunks)
        self._texts = {"old": original, "new": new}
        self._full = {}
        last = max((max(h.old_start + h.old_count, h.new_start + h.new_count) for h in self.hunks), default=1)
        self._number_width = len(str(last))
        lengths = self._lengths = {}
        code_width = changed_width = 0
        has_marker = False
        for hunk in self.hunks:
            for line in hunk.lines:
                length = lengths[id(line)] = text_width(line.text) + (len(NO_NEWLINE) if line.no_newline else 0)
                has_marker = has_marker or line.no_newline
                code_width = max(code_width, length)
                if line.kind is not LineKind.context:
                    changed_width = max(changed_width, length)
        self._no_newline_room = len(NO_NEWLINE) if has_marker else 0
        # the marker is counted in each line's length already
        self._code_width = code_width - self._no_newline_room if has_marker else code_width
        self._changed_width = changed_width - self._no_newline_room if has_marker else changed_width
        self._rebuild()

    def set_rejected(self, rejected: frozenset[int]) -> None:
        self.rejected = rejected
        self._strip_cache.clear()
        self.refresh()

    def watch_split(self) -> None:
        if self.hunks:
            self._rebuild()

    def watch_wrap(self) -> None:
        if self.hunks:
            self._rebuild()

    def watch_current(self) -> None:
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strip_cache.clear()  # rendered lines hold the old theme's colours

    # --- layout --------------------------------------------------------------------------------------------

    @property
    def view_width(self) -> int:
        return self.scrollable_content_region.width or self.size.width

    def split_fits(self, width: int | None = None) -> bool:
        """Side by side shows every change: halves wide enough, and (not wrapping) no changed line cut off."""
        width = self.view_width if width is None else width
        half_code = width // 2 - self._gutter_width(split=True)
        if half_code < MIN_HALF_CODE:
            return False
        return self.wrap or self._changed_width + self._no_newline_room <= half_code

    def _rebuild(self) -> None:
        self.showing_split = self.split and self.split_fits()
        self.rows = split_rows(self.hunks) if self.showing_split else unified_rows(self.hunks)
        self.hunk_rows = [i for i, row in enumerate(self.rows) if row.is_header]
        # the drawn lines stay: a line is drawn whole, whatever the layout or the width it is then cut to
        self._layout_key = ()
        self._update_virtual_size()
        self.refresh()

    def _code_room(self, width: int) -> int:
        """Columns for code in one half (side by side) or in the line (unified)."""
        if self.showing_split:
            return max(1, width // 2 - self._gutter_width())
        return max(1, width - self._gutter_width())

    def _update_virtual_size(self) -> None:
        width = self.view_width
        key = (width, self.wrap, self.showing_split, len(self.rows), id(self.hunks))
        if key == self._layout_key:
            return
        self._layout_key = key
        if width != self._laid_width and width > 0 and self.hunks:
            # a resize, or a scroll bar that came or went: lines wrap anew, the owner brings its change back
            self._laid_width = width
            self.post_message(self.Relaid())
        if width <= 0:  # not laid out yet: nothing to measure against
            self._starts = None
            self.changes = []
            self.virtual_size = Size(0, len(self.rows))
            return
        if self.wrap:
            room = self._code_room(width)
            lengths = self._lengths
            heights = [1 if row.is_header else max(
                1, -(-lengths.get(id(row.left), 0) // room), -(-lengths.get(id(row.right), 0) // room))
                for row in self.rows]
            self._starts = list(accumulate(heights, initial=0))
            self.changes = changes_of(self.rows, heights)
            self.virtual_size = Size(width, self._starts[-1])
            return
        self._starts = None
        self.changes = changes_of(self.rows)
        # long lines scroll sideways (both halves together when side by side) instead of being cut off
        if self.showing_split:
            hidden = max(0, self._code_width + self._no_newline_room - (width // 2 - self._gutter_width()))
            virtual_width = width + hidden if hidden else 0
        else:
            virtual_width = self._gutter_width() + self._code_width + self._no_newline_room
        self.virtual_size = Size(virtual_width, len(self.rows))

    def lay_out(self) -> None:
        """Measure the rows against the width now, rather than at the next frame (`changes` is then current)."""
        self._update_virtual_size()

    def on_resize(self) -> None:
        if self.split and self.showing_split != self.split_fits():
            self._rebuild()
        else:
            self._update_virtual_size()
        if self.size.height != self._laid_height and self.hunks:  # (a width change was said by the layout)
            self._laid_height = self.size.height
            self.post_message(self.Relaid())

    def _gutter_width(self, *, split: bool | None = None) -> int:
        # marker, old number, new number (unified) or one number (side by side), sign
        numbers = 1 if (self.showing_split if split is None else split) else 2
        return 1 + (self._number_width + 1) * numbers + 2

    def screen_line_of(self, row: int) -> int:
        """The first screen line (in the scrolled content) of a row."""
        if self._starts is None:
            return row
        return self._starts[min(max(0, row), len(self._starts) - 1)]

    def row_at(self, line: int) -> tuple[int, int]:
        """The row drawn on a content line, and which of its wrapped parts (0 for the first)."""
        if self._starts is None:
            return line, 0
        index = bisect_right(self._starts, line) - 1
        return index, line - self._starts[index]

    def _row_height(self, row: int) -> int:
        if self._starts is None:
            return 1
        return self._starts[row + 1] - self._starts[row]

    def scroll_to_hunk(self, index: int, *, animate: bool = False) -> None:
        if 0 <= index < len(self.hunk_rows):
            top = self.hunk_rows[index]
            end = self.hunk_rows[index + 1] if index + 1 < len(self.hunk_rows) else len(self.rows)
            self._bring_into_view(top, end, animate=animate)

    def _bring_into_view(self, top: int, end: int, *, animate: bool = False) -> None:
        top_line, end_line = self.screen_line_of(top), self.screen_line_of(end)
        if top_line < self.scroll_y or end_line > self.scroll_y + self.size.height:
            self.scroll_to(y=max(0, top_line - 1), animate=animate, immediate=not animate,
                           force=True)

    def scroll_to_change(self, index: int) -> None:
        """Bring a change into view: its rows, and on each side the cells from where its line starts to differ
        to where it stops (the screen lines of a wrapped line that hold them, on both halves when side by side,
        or the scroll position of a line that is not wrapped). Where one side only gained or lost text, its
        place on the other side is what is shown there."""
        self.lay_out()  # a toggled wrap or a new diff is measured before scrolling within it
        if not 0 <= index < len(self.changes):
            return
        change = self.changes[index]
        end = self.change_end(index)
        spans = self.change_spans(change.row)
        start, stop = min(first for first, _ in spans), max(last for _, last in spans)
        room = self._code_room(self.view_width)
        if self.wrap:
            top, bottom = self.screen_line_of(change.row), self.screen_line_of(end)
            # the screen lines holding the first and the last changed cell of either side
            first = top + start // room
            last = min(top + max(start, stop - 1) // room, bottom - 1)
            height, y = self.size.height, int(self.scroll_y)
            if bottom - top <= height:  # the whole change fits: all of it, a line of context above when there is room
                if top < y or bottom > y + height:
                    y = top - 1 if bottom - top < height else top
            elif not (y <= first and last < y + height):
                if last - first < height - height // 3:  # a third of the view above it: the text it follows
                    y = first - height // 3
                elif last - first < height:
                    y = last - height + 1
                else:  # more than fits: where it starts, on both sides
                    y = first
            if y != int(self.scroll_y):
                self.scroll_to(y=max(0, y), animate=False, immediate=True, force=True)
            return
        self._bring_into_view(change.row, end)
        margin = min(4, room // 4)  # cells kept after the change, so that its end is seen as its end
        x = int(self.scroll_x)
        if start < x or stop > x + room - margin:
            x = start - room // 3
            if stop > x + room - margin and stop - start <= room - margin:
                x = stop - room + margin
            # (the scrollbar may not be laid out yet for a width just changed)
            self.scroll_to(x=max(0, x), animate=False, immediate=True, force=True)

    def change_end(self, index: int) -> int:
        """The row after the last one of change `index` (its run of changed rows, up to the next change)."""
        change = self.changes[index]
        end = self.changes[index + 1].row if index + 1 < len(self.changes) else len(self.rows)
        return min(end, next((i for i in range(change.row, len(self.rows))
                              if self.rows[i].is_header or not self._is_changed(self.rows[i])), len(self.rows)))

    def anchor_of(self, index: int) -> tuple[int, ...]:
        """What change `index` shows first (its first row's changed lines, by id): after the rows are laid out
        again (side by side, wrap), `change_holding` finds the change that shows them now."""
        if not 0 <= index < len(self.changes):
            return ()
        row = self.rows[self.changes[index].row]
        return tuple(id(line) for line in (row.left, row.right) if line is not None and line.kind is not
                     LineKind.context)

    def change_holding(self, anchor: tuple[int, ...]) -> int:
        """The index of the change whose rows show the first line of `anchor` (0 when none does)."""
        self.lay_out()
        for wanted in anchor:
            for index, change in enumerate(self.changes):
                for row in self.rows[change.row:self.change_end(index)]:
                    if wanted in (id(row.left), id(row.right)):
                        return index
        return 0

    @staticmethod
    def _is_changed(row: Row) -> bool:
        return any(line is not None and line.kind is not LineKind.context for line in (row.left, row.right))

    def change_spans(self, row: int) -> list[tuple[int, int]]:
        """Where each changed line of `row` differs from its partner: from the cell where it starts to differ to
        the cell after the last that does (cells, not characters: tabs and wide characters count as drawn). A
        side that only lost or gained text there has an empty span at its place; (0, 0) for a line without a
        partner."""
        spans = [self._changed_span(line) for line in (self.rows[row].left, self.rows[row].right)
                 if line is not None and line.kind is not LineKind.context]
        return spans or [(0, 0)]

    def change_cells(self, row: int) -> list[int]:
        """The cell where each changed line of `row` starts to differ from its partner."""
        return [first for first, _ in self.change_spans(row)]

    def change_column(self, row: int) -> int:
        """The cell where the first changed line of `row` starts to differ."""
        return self.change_cells(row)[0]

    def _changed_span(self, line: DiffLine) -> tuple[int, int]:
        ranges = self._word_ranges(line)
        if not ranges:
            return 0, 0
        text = line.text.expandtabs(4)
        first = text_width(text[:ranges[0][0]])
        return first, first + text_width(text[ranges[0][0]:ranges[-1][1]])

    def _first_changed_cell(self, line: DiffLine) -> int:
        return self._changed_span(line)[0]

    def on_click(self, event: events.Click) -> None:
        row, _ = self.row_at(int(self.scroll_y) + event.y)
        if 0 <= row < len(self.rows):
            self.post_message(self.HunkClicked(self.rows[row].hunk))

    # --- changes inside lines ------------------------------------------------------------------------------

    def _word_ranges(self, line: DiffLine) -> tuple[tuple[int, int], ...]:
        """The changed ranges of a changed line (empty when it has no partner to compare with)."""
        partner = self._partners.get(id(line))
        if partner is None:
            return ()
        key = id(line) if line.kind is LineKind.removed else id(partner)
        if (diff := self._word_cache.get(key)) is None:
            old, new = (line, partner) if line.kind is LineKind.removed else (partner, line)
            diff = word_diff(old.text.expandtabs(4), new.text.expandtabs(4))
            self._word_cache[key] = diff
        return diff.old if line.kind is LineKind.removed else diff.new

    def hidden_change(self, hunk_index: int) -> tuple[str, int] | None:
        """Not wrapping: ("right" or "left", column) of a change of the hunk outside the visible columns."""
        if self.wrap or not 0 <= hunk_index < len(self.hunks):
            return None
        if hunk_index not in self._hint_cache:
            columns = [self._first_changed_cell(line) for line in [ln for ln in self.hunks[hunk_index].lines
                                                                   if ln.kind is not LineKind.context][:HINT_LINES]]
            self._hint_cache[hunk_index] = (min(columns), max(columns)) if columns else None
        span = self._hint_cache[hunk_index]
        if span is None:
            return None
        first, last = span
        left, room = int(self.scroll_x), self._code_room(self.view_width)
        if first < left:
            return "left", first
        for column in (first, last):
            if column >= left + room:
                return "right", column
        return None

    # --- rendering -------------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.view_width
        self._update_virtual_size()
        index, part = self.row_at(int(self.scroll_y) + y)
        if index >= len(self.rows):
            return Strip.blank(width, self.rich_style)
        row = self.rows[index]
        if row.is_header:
            return self._header_strip(row.hunk, width)
        if not self.showing_split:
            return self._half(row.left, row.hunk, width, numbers=2, part=part)
        # both halves as wide (an odd width's last cell left blank): each wraps at `_code_room`, so the rows
        # of a wrapped pair stay side by side and a change's wrapped row is where it was measured
        half = width // 2
        left = self._half(row.left, row.hunk, half, numbers=1, side="old", part=part)
        right = self._half(row.right, row.hunk, half, numbers=1, side="new", part=part)
        return Strip.join([left, right]).extend_cell_length(width, self.rich_style)

    def _header_strip(self, hunk_index: int, width: int) -> Strip:
        hunk = self.hunks[hunk_index]
        current = hunk_index == self.current
        head = f"{'▶' if current else ' '} {hunk.header}"
        state = "rejected" if hunk_index in self.rejected else "accepted"
        where = f"hunk {hunk.number}/{len(self.hunks)}  {state}"
        component = "diff-view--header-current" if current else "diff-view--header"
        style = self.get_component_rich_style(component)
        hidden = self.hidden_change(hunk_index)
        # most important first: a change out of view, then a rejection; the hunk's number gives way first
        parts = [(head,), hint_texts(*hidden) if hidden else ("",),
                 (where, state) if state == "rejected" else (where, "")]
        head, hint, where = fit_parts(parts, width)
        segments = [Segment(head, style)]
        if hint:
            segments.append(Segment(f"  {hint}", self.get_component_rich_style("diff-view--hint")))
        if where:
            segments.append(Segment(f"  {where}", style))
        return Strip(segments).crop_extend(0, width, style)

    def _half(self, line: DiffLine | None, hunk_index: int, width: int, *, numbers: int,
              side: str = "", part: int = 0) -> Strip:
        if line is None:
            style = self.get_component_rich_style("diff-view--blank")
            return Strip.blank(width, style)
        component = {
            LineKind.added: "diff-view--added", LineKind.removed: "diff-view--removed",
            LineKind.context: "diff-view--context",
        }[line.kind]
        rejected = hunk_index in self.rejected and line.kind is not LineKind.context
        components = (component, "diff-view--rejected") if rejected else (component,)
        line_style = self.get_visual_style(*components)
        rich_line = line_style.rich_style
        n = self._number_width
        if part:
            label = " " * ((n + 1) * numbers)
        elif numbers == 2:
            label = f"{_num(line.old_no, n)} {_num(line.new_no, n)} "
        else:
            label = f"{_num(line.old_no if side == 'old' else line.new_no, n)} "
        sign = {LineKind.added: "+", LineKind.removed: "-", LineKind.context: " "}[line.kind] if not part else "↪"
        marker_style = self.get_component_rich_style("diff-view--marker")
        gutter = [
            Segment("▌" if hunk_index == self.current else " ", marker_style if hunk_index == self.current
                    else rich_line),
            Segment(label, self.get_component_rich_style("diff-view--lineno")),
            Segment(f"{sign} ", rich_line if not part else self.get_component_rich_style("diff-view--lineno")),
        ]
        gutter_width = sum(seg.cell_length for seg in gutter)
        code_width = max(0, width - gutter_width)
        code = self._code_strip(line, side or ("new" if line.kind is LineKind.added else "old"), rejected,
                                components)
        start = part * code_width if self.wrap else int(self.scroll_x)
        return Strip.join([Strip(gutter), self._cells(code, start, start + code_width, rich_line)])

    def _cells(self, code: Strip, start: int, end: int, style: Style) -> Strip:
        """`code.crop_extend(start, end, style)`, from the few segments that hold those cells: cropping walks the
        segments from the first, so each screen row of a long wrapped line walked the whole line (a 17,000-cell
        line at 60 columns: 300 rows, each over thousands of segments, at every redraw)."""
        entry = self._offsets_cache.get(id(code))
        if entry is None or entry[0] is not code:
            if len(self._offsets_cache) >= STRIP_CACHE:
                self._offsets_cache.clear()
            entry = self._offsets_cache[id(code)] = (code, [0, *accumulate(s.cell_length for s in code._segments)])
        offsets = entry[1]
        first = max(0, bisect_right(offsets, start) - 1)
        after = min(bisect_right(offsets, end, lo=first), len(offsets) - 1)  # with the empty ones at `end`
        base = offsets[first]
        return Strip(code._segments[first:after], offsets[after] - base).crop_extend(start - base, end - base, style)

    def _code_strip(self, line: DiffLine, side: str, rejected: bool, components: tuple[str, ...]) -> Strip:
        """The whole line drawn once (highlighted, changed words marked), cropped per screen row by the caller."""
        key = (id(line), side, rejected, hash(components))
        if (cached := self._strip_cache.get(key)) is not None:
            return cached
        line_style = self.get_visual_style(*components)
        content = self._highlighted(line, side)
        if line.kind is not LineKind.context and not rejected:
            word = self.get_visual_style(f"{components[0]}-word")
            for start, end in self._word_ranges(line):
                if end > start:
                    content = content.stylize(word, start, end)
        if line.no_newline:
            content = content + Content(NO_NEWLINE)
        segments = [Segment(text, style.rich_style)
                    for text, style in content.render(line_style, end="", parse_style=self._get_style)]
        strip = Strip(segments)
        if len(self._strip_cache) >= STRIP_CACHE:
            self._strip_cache.clear()
        self._strip_cache[key] = strip
        return strip

    def _highlighted(self, line: DiffLine, side: str) -> Content:
        number = line.old_no if side == "old" and line.old_no is not None else line.new_no or line.old_no or 0
        key = (side, number)
        if (cached := self._highlight_cache.get(key)) is None:
            full = self._full_text(side)
            if full is not None and 0 < number <= len(full) and full[number - 1].plain == line.text.expandtabs(4):
                cached = full[number - 1]
            else:
                cached = highlight_line(line.text, self._lexer)
            self._highlight_cache[key] = cached
        return cached

    def _full_text(self, side: str) -> list[Content] | None:
        if side not in self._full:
            text = self._texts.get(side)
            small = text is not None and text.count("\n") <= FULL_HIGHLIGHT_MAX_LINES
            self._full[side] = highlight_text(text, self._lexer) if small and self._lexer and text else None
        return self._full[side]


def fit_parts(parts: Sequence[tuple[str, ...]], width: int, separator: str = "  ") -> list[str]:
    """The wording chosen for each part (parts in order of importance, wordings longest first; "" drops a part):
    the least important part shortens, and goes, first, until the parts joined by `separator` fit in `width`
    cells or none can shorten further."""
    chosen = [0] * len(parts)

    def length() -> int:
        shown = [part[k] for part, k in zip(parts, chosen, strict=True) if part[k]]
        return sum(cell_len(text) for text in shown) + cell_len(separator) * max(0, len(shown) - 1)

    for index in reversed(range(len(parts))):
        while length() > width and chosen[index] < len(parts[index]) - 1:
            chosen[index] += 1
    return [part[k] for part, k in zip(parts, chosen, strict=True)]


def hint_texts(direction: str, column: int) -> tuple[str, ...]:
    """What says a change lies beyond the visible width, longest first."""
    arrow = "→" if direction == "right" else "←"
    where = f"{arrow} change at column {column + 1}"
    return (f"{where}, beyond the visible width (w wraps, n jumps to it)", f"{where} (w wraps, n jumps to it)",
            where, f"{arrow} col {column + 1}")


def _num(value: int | None, width: int) -> str:
    return str(value).rjust(width) if value is not None else " " * width
