"""Streamed answer blocks: Markdown fed by deltas through Textual's MarkdownStream, and collapsible thoughts.

A long answer is streamed in segments: the live segment is a Textual `Markdown` (one widget per block), and
each finished segment becomes one widget rendering the same text, so a 100 KB answer costs the layout a few
dozen widgets rather than thousands."""

from __future__ import annotations

import asyncio

from rich.markdown import Markdown as RichMarkdown
from textual.containers import Vertical
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown
from textual.widgets.markdown import MarkdownStream

SEGMENT_CHARS = 3000  # a live segment is frozen at the first paragraph break past this size
FLUSH_INTERVAL = 0.2  # seconds: deltas are handed to the MarkdownStream at most this often (5 updates a second)


class StreamedMarkdown(Markdown):
    """A Markdown block fed by deltas through Textual's MarkdownStream, then set once to the full text.

    Deltas are gathered for FLUSH_INTERVAL before they go to the stream: a model sends many tiny chunks, and
    each append re-lays the block out, so fewer, larger appends cost far less for the same text on screen."""

    def __init__(self, classes: str = "") -> None:
        super().__init__("", classes=classes)
        self._parts: list[str] = []
        self._pending: list[str] = []
        self._stream: MarkdownStream | None = None
        self._flush_handle: asyncio.TimerHandle | None = None

    @property
    def text(self) -> str:
        return "".join(self._parts)

    async def write(self, delta: str) -> None:
        self._parts.append(delta)
        self._pending.append(delta)
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
            await self._flush()  # the first words show at once
        elif self._flush_handle is None:
            loop = asyncio.get_running_loop()
            self._flush_handle = loop.call_later(FLUSH_INTERVAL, lambda: loop.create_task(self._flush()))

    async def _flush(self) -> None:
        self._flush_handle = None
        if self._pending and self._stream is not None:
            text, self._pending = "".join(self._pending), []
            await self._stream.write(text)

    async def stop(self) -> None:
        """Stop streaming without the final update (the text is shown elsewhere)."""
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        self._pending = []
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None

    async def finish(self) -> None:
        if self._stream is not None:
            await self.stop()
            await self.update(self.text)


class FrozenMarkdown(Widget):
    """The finished segments of an answer in one widget: Rich renders each segment's Markdown once per width.

    The lines are kept, so laying out or scrolling a long answer never renders its Markdown again, and a
    100 KB answer costs the layout one widget here rather than thousands of Markdown blocks."""

    DEFAULT_CSS = "FrozenMarkdown { height: auto; }"

    def __init__(self) -> None:
        super().__init__(classes="answer-segment")
        self.segments: list[str] = []
        self._lines: list[Strip] = []
        self._key: tuple[int, bool] | None = None

    def add(self, text: str) -> None:
        self.segments.append(text)
        if self._key is not None:
            self._lines.extend(self._render(text, *self._key))
        self.refresh(layout=True)

    def _render(self, text: str, width: int, dark: bool) -> list[Strip]:
        markdown = RichMarkdown(text, code_theme="monokai" if dark else "default", hyperlinks=False)
        console = self.app.console
        rendered = console.render_lines(markdown, console.options.update_width(width), style=self.rich_style,
                                        pad=True)
        return [Strip(line, width) for line in rendered]

    def lines_for(self, width: int) -> list[Strip]:
        dark = self.app.current_theme.dark if self.app.current_theme else True
        if self._key != (width, dark) and width > 0:
            self._lines = [line for text in self.segments for line in self._render(text, width, dark)]
            self._key = (width, dark)
        return self._lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines_for(width))

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        lines = self.lines_for(width)
        return lines[y] if y < len(lines) else Strip.blank(width, self.rich_style)


def segment_cut(text: str) -> int:
    """Where `text` may be cut: just after its last paragraph break outside any code fence (0 if nowhere)."""
    cut, position, in_fence = 0, 0, False
    for line in text.splitlines(keepends=True):
        position += len(line)
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        elif not in_fence and not line.strip():
            cut = position
    return cut


class AnswerBlock(Vertical):
    """The model's answer to one request, as frozen segments followed by the live one."""

    def __init__(self, classes: str = "answer") -> None:
        super().__init__(classes=classes)
        self._parts: list[str] = []
        self._frozen: FrozenMarkdown | None = None
        self._live: StreamedMarkdown | None = None
        self._live_size = 0

    @property
    def text(self) -> str:
        return "".join(self._parts)

    async def write(self, delta: str) -> None:
        self._parts.append(delta)
        await self._write_live(delta)
        if self._live_size >= SEGMENT_CHARS and "\n" in delta:
            assert self._live is not None
            text = self._live.text
            if (cut := segment_cut(text)) > 0:
                await self._freeze(text[:cut], text[cut:])

    async def _write_live(self, delta: str) -> None:
        if self._live is None:
            self._live = StreamedMarkdown(classes="answer-live")
            self._live_size = 0
            await self.mount(self._live)
        await self._live.write(delta)
        self._live_size += len(delta)

    async def _freeze(self, done: str, rest: str) -> None:
        """`done` joins the frozen segments; `rest` (after the cut) starts the next live segment."""
        live, self._live = self._live, None
        assert live is not None
        await live.stop()
        if self._frozen is None:
            self._frozen = FrozenMarkdown()
            await self.mount(self._frozen, before=live)
        self._frozen.add(done)
        await live.remove()
        if rest:
            await self._write_live(rest)

    async def finish(self) -> None:
        if self._live is not None:
            await self._live.finish()

    async def freeze(self) -> None:
        """The whole answer as one frozen widget: for old turns, which the user has scrolled past."""
        if self._live is not None:
            await self._freeze(self._live.text, "")


class ThoughtBlock(Collapsible):
    """The model's thoughts, collapsed by default so the answer stays in front."""

    def __init__(self) -> None:
        self.body = StreamedMarkdown(classes="thought-text")
        super().__init__(self.body, title="Thinking…", collapsed=True, classes="thought")

    async def write(self, delta: str) -> None:
        await self.body.write(delta)

    async def finish(self) -> None:
        await self.body.finish()
        self.title = "Thought"
