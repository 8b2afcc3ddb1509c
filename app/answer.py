"""Streamed answer blocks: Markdown fed by deltas through Textual's MarkdownStream, and collapsible thoughts."""

from __future__ import annotations

from textual.widgets import Collapsible, Markdown
from textual.widgets.markdown import MarkdownStream


class StreamedMarkdown(Markdown):
    """A Markdown block fed by deltas through Textual's MarkdownStream, then set once to the full text."""

    def __init__(self, classes: str = "") -> None:
        super().__init__("", classes=classes)
        self.text = ""
        self._stream: MarkdownStream | None = None

    async def write(self, delta: str) -> None:
        self.text += delta
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
        await self._stream.write(delta)

    async def finish(self) -> None:
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
            await self.update(self.text)


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
