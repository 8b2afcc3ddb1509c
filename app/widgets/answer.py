"""The model's answers and thoughts, and Markdown command output: one renderer (Rich), one widget per block of text.

Streamed text is split into its top-level Markdown blocks as it arrives (markdown-it, the parser Rich uses). A
block followed by another one can no longer change, so it is rendered once per width and kept as lines; only the
open block at the end is rendered again as it grows. A 100 KB answer is one widget, each piece of it is rendered
about once, and a table or a code block looks the same while it streams, after it ends and in an old turn."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.markdown import Markdown as RichMarkdown
from rich.segment import Segment
from rich.style import Style
from rich.theme import Theme
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Collapsible

from gemini_tui.app.widgets.selectable_lines import selectable_line

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token
    from textual.selection import Selection

FLUSH_INTERVAL = 0.2  # seconds: streamed text is parsed and drawn at most this often (5 updates a second)
TAKE_CHARS = 3000  # characters parsed at a time when a burst of text arrives
DRAW_BUDGET = 0.005  # seconds of drawing per frame at most; the rest is drawn at the next frames
DRAW_PAUSE = 0.005  # seconds between two slices of drawing, for the keys and the frames waiting meanwhile
RENDER_SHARE = 8  # the wait before the next update is at least this many times the last update's cost

Line = list[Segment]  # one line of text as Rich draws it

_parser: MarkdownIt | None = None


def markdown_parser() -> MarkdownIt:
    """One parser for every block (Rich builds one per call: 0.2 ms), with Rich's extensions (tables,
    strikethrough) and without raw HTML: Rich draws no HTML, so `<details>`, `List<String>` or `<br>` would
    vanish from the answer; as text they stay visible, as written."""
    global _parser
    if _parser is None:
        from markdown_it import MarkdownIt

        _parser = MarkdownIt("commonmark", {"html": False}).enable("strikethrough").enable("table")
    return _parser


def markdown_styles(accent: str | None) -> Theme:
    """Rich's Markdown styles that assume a dark terminal, in the app theme's colours: inline code is bold in the
    accent colour, not cyan on a black box (which sat in a light theme like a hole)."""
    return Theme({"markdown.code": Style(bold=True, color=accent or "cyan")}, inherit=True)


_primer_tokens: list[Token] = []


def _primer() -> list[Token]:
    """A one-line paragraph: drawn before a block, it leaves Rich expecting a blank line as any paragraph does."""
    if not _primer_tokens:
        _primer_tokens.extend(markdown_parser().parse("x\n"))
    return _primer_tokens


def warm_up() -> None:
    """Load and prepare what the first answer needs, on a thread with a console of its own: the parser, Rich's
    Markdown, tables and syntax highlighting, and the Python lexer's compiled rules (Pygments compiles a lexer's
    rules on first use, ~10 ms)."""
    import io

    from rich.console import Console

    sample = ("# warm\n\n| a | b |\n|---|---|\n| `c` | **d** |\n\n- e\n\n"
              "```python\ndef f(x: int) -> int:\n    return x\n```\n")
    console = Console(file=io.StringIO(), width=80, color_system="truecolor")
    for theme in ("monokai", "default"):
        console.render_lines(_Tokens(markdown_parser().parse(sample), theme), console.options)


@dataclass
class Block:
    """One top-level Markdown block: its source, and its tokens until it is first drawn."""

    source: str
    tokens: list[Token] | None = None
    rule: bool = False  # a horizontal rule: Rich puts no blank line after one


def split_blocks(text: str) -> list[Block]:
    """`text` as its top-level blocks; each block's source runs to the first line of the next one."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # as markdown-it counts lines
    tokens = markdown_parser().parse(text)
    starts = [index for index, token in enumerate(tokens)
              if token.level == 0 and token.nesting >= 0 and token.map is not None]
    line_offsets = [0]
    position = text.find("\n")
    while position >= 0:
        line_offsets.append(position + 1)
        position = text.find("\n", position + 1)
    bounds = [0, *(line_offsets[tokens[index].map[0]] for index in starts[1:]), len(text)]  # type: ignore[index]
    ends = [*starts[1:], len(tokens)]
    return [Block(text[bounds[n]:bounds[n + 1]], tokens[start:ends[n]], rule=tokens[start].type == "hr")
            for n, start in enumerate(starts)]


class _Tokens(RichMarkdown):
    """Rich's Markdown renderable over tokens already parsed (it would otherwise build a parser and parse again)."""

    _templates: dict[str, RichMarkdown] = {}  # noqa: RUF012 - one per code theme, shared on purpose

    def __init__(self, tokens: list[Token], code_theme: str) -> None:
        template = self._templates.get(code_theme)
        if template is None:
            template = self._templates[code_theme] = RichMarkdown("", code_theme=code_theme, hyperlinks=False)
        vars(self).update(vars(template))  # every setting the installed Rich keeps, whatever its version
        self.parsed = tokens


class MarkdownText(Widget):
    """Markdown drawn line by line from its blocks: finished blocks are rendered once per width, the open one at
    the end again as text arrives (at most every FLUSH_INTERVAL, less often when drawing it costs more)."""

    DEFAULT_CSS = "MarkdownText { height: auto; }"

    def __init__(self, text: str = "", classes: str = "") -> None:
        super().__init__(classes=classes)
        self._parts: list[str] = []
        self._pending: list[str] = []
        self._blocks: list[Block] = []  # finished: they cannot change any more
        self._open: Block | None = None  # the last block, still growing
        self._drawn = 0  # finished blocks whose lines are in _lines
        # lines as Rich's segments, not Strips: a Strip brings seven caches, and 100 KB is 5,000 lines for the GC
        self._lines: list[Line] = []  # the finished blocks' lines, for _key
        self._open_lines: list[Line] | None = None
        self._key: tuple[int, str] | None = None  # the width and the theme the lines were drawn for
        self._style = Style()
        self._markdown_styles = markdown_styles(None)  # for the theme in _key
        self._handle: asyncio.TimerHandle | None = None  # the next step of taking and drawing text
        self._interval = FLUSH_INTERVAL
        self._final = False  # no more text comes: the open block is finished too
        self._shown: int | None = None  # the height the layout last got
        if text:
            self._parts.append(text)
            self._take(text, final=True)

    @property
    def text(self) -> str:
        return "".join(self._parts)

    @property
    def source(self) -> str:
        """The Markdown as written (the name Textual's Markdown widget gives it)."""
        return self.text

    @property
    def complete(self) -> bool:
        """All of its text is in (finished, or given whole) and taken apart into blocks."""
        return self._handle is None and not self._pending and self._open is None

    @property
    def settled(self) -> bool:
        """Complete and drawn, for the width and theme it is laid out with, at the height the layout gave it: its
        lines on screen are the last it will draw."""
        return (self.complete and self._key is not None and self._key == (self.content_size.width, self.app.theme)
                and self._drawn == len(self._blocks) and self._shown == self._height())

    @property
    def block_count(self) -> int:
        return len(self._blocks) + (self._open is not None)

    # -- text arriving --------------------------------------------------------------------------------------------
    async def write(self, delta: str) -> None:
        self._parts.append(delta)
        self._pending.append(delta)
        if self._handle is None:
            first = not self._blocks and self._open is None and len(self._parts) == 1
            self._schedule(0 if first else self._interval)  # the first words show at once

    async def finish(self) -> None:
        """The text is complete: its last block is finished too (drawn by the steps still to come)."""
        self._final = True
        if self._handle is None:
            self._schedule(0)

    def on_mount(self) -> None:
        # a signal, not a watch of app.theme: the app keeps a watcher until the theme next changes, so every block
        # of a long session's pruned turns stayed alive with its lines; this subscription ends with the block
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, _theme: object = None) -> None:
        """The colours are in the lines kept: a new theme draws them again (in slices, as a new width does)."""
        self._key = None
        self.refresh(layout=True)

    def on_unmount(self) -> None:
        self.app.theme_changed_signal.unsubscribe(self)
        if self._handle is not None:  # removed (a retried stream, a cleared chat): nothing left to draw
            self._handle.cancel()
            self._handle = None

    def _schedule(self, delay: float) -> None:
        self._handle = asyncio.get_running_loop().call_later(delay, self._step)

    def _step(self) -> None:
        """Take at most TAKE_CHARS of the text gathered since the last step, draw for at most DRAW_BUDGET, and
        come back after DRAW_PAUSE while there is more (the keys and frames waiting meanwhile go first). The
        screen is refreshed once everything is drawn, so a burst of text dirties it once, not once a slice."""
        self._handle = None
        started = time.perf_counter()
        if self._pending:
            added = "".join(self._pending)
            self._pending = [added[TAKE_CHARS:]] if len(added) > TAKE_CHARS else []
            self._take(added[:TAKE_CHARS], final=self._final and not self._pending)
        elif self._final and self._open is not None:
            self._take("", final=True)
        if self._key is None or not self.is_mounted:  # not laid out yet: the layout draws
            self.refresh(layout=True)
            if self._pending:
                self._schedule(DRAW_PAUSE)
            return
        drawn = self._update(self._key[0])
        if self._pending or not drawn or (self._final and self._open is not None):
            self._schedule(DRAW_PAUSE)
            return
        height = self._height()
        self.refresh(layout=height != self._shown)
        self._shown = height
        # a long open block (a big table or code fence) costs more each time: update it less often
        self._interval = max(FLUSH_INTERVAL, RENDER_SHARE * (time.perf_counter() - started))

    def _take(self, added: str, final: bool) -> None:
        tail = (self._open.source if self._open is not None else "") + added
        if final:
            self._blocks.extend(split_blocks(tail))
            self._open = None
        else:
            # Where blocks end is read from whole lines only: a line still arriving can change what the lines
            # before it are ("2" is a paragraph that ends a list; "2. b" continues it).
            whole = tail[:tail.rfind("\n") + 1]
            blocks = split_blocks(whole)
            opened = blocks.pop().source if blocks else ""
            self._blocks.extend(blocks)
            self._open = Block(opened + tail[len(whole):]) if opened else Block(tail)
        self._open_lines = None

    def _take_all(self) -> None:
        added, self._pending = "".join(self._pending), []
        if added or (self._final and self._open is not None):
            self._take(added, final=self._final)

    # -- drawing ---------------------------------------------------------------------------------------------------
    def _height(self) -> int:
        return len(self._lines) + len(self._open_lines or ())

    def _render_block(self, block: Block, width: int, dark: bool, after: Block | None) -> list[Line]:
        """The block's lines as Rich draws them in the whole text. Between blocks Rich carries one thing, whether
        a blank line comes next (not after a horizontal rule; a list or a table brings its own): drawing the
        block after a one-line paragraph, whose line is then dropped, gives Rich's own answer."""
        tokens = block.tokens if block.tokens is not None else markdown_parser().parse(block.source)
        block.tokens = None  # the lines are kept instead; another width parses the source again
        primed = after is not None and not after.rule
        if primed:
            tokens = [*_primer(), *tokens]
        console = self.app.console
        with console.use_theme(self._markdown_styles):
            lines = console.render_lines(_Tokens(tokens, "monokai" if dark else "default"),
                                         console.options.update_width(width), style=self._style, pad=True)
        return lines[1:] if primed else lines

    def _update(self, width: int, budget: float | None = DRAW_BUDGET) -> bool:
        """Draw what is not drawn at `width`: new finished blocks, then the open block if it changed. Drawing stops
        after `budget` seconds (False: more to draw), so a burst of text or a new width never holds the keyboard up
        for long; meanwhile the height is that of the blocks drawn so far."""
        theme = self.app.current_theme
        dark = theme.dark if theme else True
        if self._key != (width, self.app.theme):
            self._key, self._lines, self._drawn, self._open_lines = (width, self.app.theme), [], 0, None
            self._markdown_styles = markdown_styles(theme.accent if theme else None)
        self._style = self.rich_style  # computed from the ancestors each time it is read: once per update
        deadline = None if budget is None else time.perf_counter() + budget
        while self._drawn < len(self._blocks):
            if deadline is not None and time.perf_counter() > deadline:
                return False
            previous = self._blocks[self._drawn - 1] if self._drawn else None
            self._lines.extend(self._render_block(self._blocks[self._drawn], width, dark, previous))
            self._drawn += 1
        if self._open_lines is None:
            self._open_lines = []
            if self._open is not None and self._open.source.strip():
                previous = self._blocks[-1] if self._blocks else None
                self._open_lines = self._render_block(self._open, width, dark, previous)
        return True

    def line_count(self, width: int, budget: float | None = DRAW_BUDGET) -> int:
        if width <= 0:
            return 0
        if not self._update(width, budget) and self._handle is None:
            self._schedule(DRAW_PAUSE)  # the rest is drawn by the next steps
        return self._height()

    def lines_for(self, width: int) -> list[Strip]:
        """Every line at `width`, all taken and drawn now (for tests and callers that want the whole text)."""
        self._take_all()
        self.line_count(width, budget=None)
        return [Strip(line, width) for line in (*self._lines, *(self._open_lines or ()))]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # The steps draw; a layout draws one slice only for a width it has not seen (a layout can ask twice)
        new_width = self._key is None or self._key[0] != width
        self._shown = self.line_count(width, DRAW_BUDGET if new_width else 0)
        return self._shown

    def render_line(self, y: int) -> Strip:
        """A line drawn at the last layout (drawing happens there, so the height and the lines agree)."""
        width = self.content_size.width
        if self._key is None or self._key[0] != width:
            return Strip.blank(width, self.rich_style)
        if y < len(self._lines):
            return selectable_line(self, self._lines[y], width, y)
        rest, line = self._open_lines or [], y - len(self._lines)
        return selectable_line(self, rest[line], width, y) if line < len(rest) else Strip.blank(width,
                                                                                               self.rich_style)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The part of the text as drawn that the mouse went over (Ctrl+C copies it)."""
        lines = [*self._lines, *(self._open_lines or ())]
        if not lines:
            return None
        text = "\n".join("".join(segment.text for segment in line).rstrip() for line in lines)
        return selection.extract(text), "\n"


class AnswerBlock(MarkdownText):
    """The model's answer to one request: streamed, or whole (a resumed session). A double click copies the
    whole answer's Markdown (not only what is on screen) through the terminal's clipboard."""

    class CopyRequested(Message):
        """The user asked to copy `text` (`what` names it in the notice that says it was copied)."""

        def __init__(self, text: str, what: str) -> None:
            super().__init__()
            self.text = text
            self.what = what

    def __init__(self, text: str = "", classes: str = "answer") -> None:
        super().__init__(text, classes=classes)

    def on_click(self, event: events.Click) -> None:
        if event.chain < 2:
            return
        event.stop()
        if text := self.text + "".join(self._pending):
            self.post_message(self.CopyRequested(text, "the whole answer's Markdown"))


class ThoughtBlock(Collapsible):
    """The model's thoughts, collapsed by default so the answer stays in front."""

    def __init__(self, text: str = "", title: str = "Thinking…", collapsed: bool = True) -> None:
        self.body = MarkdownText(text, classes="thought-text")
        super().__init__(self.body, title=title, collapsed=collapsed, classes="thought")

    async def write(self, delta: str) -> None:
        await self.body.write(delta)

    async def finish(self) -> None:
        await self.body.finish()
        self.title = "Thought"
