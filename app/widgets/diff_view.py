"""A line-based diff widget: unified or side by side, highlighted, with line numbers and a current hunk.

It renders only the rows on screen (Line API), so a 10,000-line diff opens as fast as a 10-line one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_for_filename
from pygments.util import ClassNotFound
from rich.segment import Segment
from textual import events
from textual.content import Content, Span
from textual.geometry import Size
from textual.highlight import HighlightTheme
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from gemini_tui.app.widgets.diff_hunks import DiffLine, Hunk, LineKind


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


def highlight_line(text: str, lexer: Lexer | None) -> Content:
    """One line highlighted on its own: cheap and lazy (a string spanning lines loses its colour, rarely)."""
    text = text.expandtabs(4)
    if lexer is None or not text:
        return Content(text)
    return Content(text, spans=_token_spans(text, lexer))


def highlight_text(text: str, lexer: Lexer) -> list[Content]:
    """A whole file highlighted at once, one Content per line (multi-line strings keep their colour)."""
    text = text.expandtabs(4)
    return Content(text, spans=_token_spans(text, lexer)).split("\n", allow_blank=True)


NO_NEWLINE = " ⏎ no newline at end of file"
FULL_HIGHLIGHT_MAX_LINES = 1000  # about 0.06 s of lexing per side; bigger files are highlighted line by line, lazily


class DiffView(ScrollView, can_focus=False):
    """The rows of a diff. The owner sets the hunks, the current hunk and the rejected hunks."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff-view--header", "diff-view--header-current", "diff-view--lineno", "diff-view--marker",
        "diff-view--added", "diff-view--removed", "diff-view--context", "diff-view--rejected",
        "diff-view--blank",
    }

    split: reactive[bool] = reactive(False)
    current: reactive[int] = reactive(-1)

    class HunkClicked(Message):
        def __init__(self, hunk: int) -> None:
            super().__init__()
            self.hunk = hunk

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.hunks: tuple[Hunk, ...] = ()
        self.rejected: frozenset[int] = frozenset()
        self.path = ""
        self.rows: list[Row] = []
        self.hunk_rows: list[int] = []  # first row (the header) of each hunk
        self._lexer: Lexer | None = None
        self._highlight_cache: dict[tuple[str, int], Content] = {}
        self._number_width = 1
        self._code_width = 0
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
        self._texts = {"old": original, "new": new}
        self._full: dict[str, list[Content] | None] = {}
        last = max((max(h.old_start + h.old_count, h.new_start + h.new_count) for h in self.hunks), default=1)
        self._number_width = len(str(last))
        self._code_width = max((len(line.text.expandtabs(4)) for h in self.hunks for line in h.lines), default=0)
        has_marker = any(line.no_newline for h in self.hunks for line in h.lines)
        self._no_newline_room = len(NO_NEWLINE) if has_marker else 0
        self._rebuild()

    def set_rejected(self, rejected: frozenset[int]) -> None:
        self.rejected = rejected
        self.refresh()

    def watch_split(self) -> None:
        self._rebuild()

    def watch_current(self) -> None:
        self.refresh()

    def _rebuild(self) -> None:
        self.rows = split_rows(self.hunks) if self.split else unified_rows(self.hunks)
        self.hunk_rows = [i for i, row in enumerate(self.rows) if row.is_header]
        self._update_virtual_size()
        self.refresh()

    def _update_virtual_size(self) -> None:
        # long lines scroll sideways (both halves together when side by side) instead of being cut off
        if self.split:
            width = self.scrollable_content_region.width
            hidden = max(0, self._code_width + self._no_newline_room - (width // 2 - self._gutter_width()))
            virtual_width = width + hidden if hidden else 0
        else:
            virtual_width = self._gutter_width() + self._code_width + self._no_newline_room
        self.virtual_size = Size(virtual_width, len(self.rows))

    def on_resize(self) -> None:
        self._update_virtual_size()

    def _gutter_width(self) -> int:
        # marker, old number, new number (unified) or one number (side by side), sign
        numbers = 1 if self.split else 2
        return 1 + (self._number_width + 1) * numbers + 2

    def scroll_to_hunk(self, index: int, *, animate: bool = False) -> None:
        if 0 <= index < len(self.hunk_rows):
            top = self.hunk_rows[index]
            end = self.hunk_rows[index + 1] if index + 1 < len(self.hunk_rows) else len(self.rows)
            if top < self.scroll_y or end > self.scroll_y + self.size.height:
                self.scroll_to(y=max(0, top - 1), animate=animate)

    def on_click(self, event: events.Click) -> None:
        y = int(self.scroll_y) + event.y
        if 0 <= y < len(self.rows):
            self.post_message(self.HunkClicked(self.rows[y].hunk))

    # --- rendering -------------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = int(self.scroll_y) + y
        if index >= len(self.rows):
            return Strip.blank(width, self.rich_style)
        row = self.rows[index]
        if row.is_header:
            return self._header_strip(row.hunk, width)
        if not self.split:
            return self._half(row.left, row.hunk, width, numbers=2)
        left_width = width // 2
        left = self._half(row.left, row.hunk, left_width, numbers=1, side="old")
        right = self._half(row.right, row.hunk, width - left_width, numbers=1, side="new")
        return Strip.join([left, right])

    def _header_strip(self, hunk_index: int, width: int) -> Strip:
        hunk = self.hunks[hunk_index]
        current = hunk_index == self.current
        state = "rejected" if hunk_index in self.rejected else "accepted"
        text = f"{'▶' if current else ' '} {hunk.header}  hunk {hunk.number}/{len(self.hunks)}  {state}"
        component = "diff-view--header-current" if current else "diff-view--header"
        style = self.get_component_rich_style(component)
        return Strip([Segment(text, style)]).crop_extend(0, width, style)

    def _half(self, line: DiffLine | None, hunk_index: int, width: int, *, numbers: int,
              side: str = "") -> Strip:
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
        if numbers == 2:
            label = f"{_num(line.old_no, n)} {_num(line.new_no, n)} "
        else:
            label = f"{_num(line.old_no if side == 'old' else line.new_no, n)} "
        sign = {LineKind.added: "+", LineKind.removed: "-", LineKind.context: " "}[line.kind]
        marker_style = self.get_component_rich_style("diff-view--marker")
        gutter = [
            Segment("▌" if hunk_index == self.current else " ", marker_style if hunk_index == self.current
                    else rich_line),
            Segment(label, self.get_component_rich_style("diff-view--lineno")),
            Segment(f"{sign} ", rich_line),
        ]
        gutter_width = sum(seg.cell_length for seg in gutter)
        code_width = max(0, width - gutter_width)
        content = self._highlighted(line, side or ("new" if line.kind is LineKind.added else "old"))
        if line.no_newline:
            content = content + Content(NO_NEWLINE)
        segments = [Segment(text, style.rich_style)
                    for text, style in content.render(line_style, end="", parse_style=self._get_style)]
        scroll_x = int(self.scroll_x)
        code = Strip(segments).crop_extend(scroll_x, scroll_x + code_width, rich_line)
        return Strip.join([Strip(gutter), code])

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


def _num(value: int | None, width: int) -> str:
    return str(value).rjust(width) if value is not None else " " * width
