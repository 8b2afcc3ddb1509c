"""When and how the conversation is condensed before a request: old tool outputs shortened, then older turns
summarised by the model (the rules of what may be cut are in `compression`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.events import ContextUsed, HistoryCompressed, Notice
from gemini_tui.core.ground.model_api import (
    Content,
    ModelClient,
    ModelError,
    ModelRequest,
    RetryChunk,
    TextChunk,
    UsageChunk,
)
from gemini_tui.core.ground.stats import SessionStats
from gemini_tui.core.session import compression
from gemini_tui.core.session.abortable import until_aborted
from gemini_tui.core.session.hook_points import HookPoints
from gemini_tui.core.session.state import SessionState


class Compressor:
    """Keeps the conversation under `model.compressionThreshold` of the model's context window."""

    def __init__(self, state: SessionState, stats: SessionStats, threshold: float,
                 model: Callable[[], ModelClient], hook_points: HookPoints) -> None:
        self.state = state
        self.stats = stats
        self.threshold = threshold
        self.model = model
        self._failed_at = -1  # the conversation revision at which compression could not help
        self.hook_points = hook_points  # PreCompress fires before a compression

    def context_window(self) -> int:
        """A client that knows its window (a local model's, from its server or settings) says so."""
        model = self.model()
        return getattr(model, "context_window", None) or compression.context_window(model.model_name)

    async def maybe_compress(self, abort: AbortSignal, *, force: bool = False) -> compression.Compression | None:
        """Before a request: past the threshold, large old tool outputs are shortened first, and if that is not
        enough the older turns are summarised by the model (a request of its own, with no tools); the newest ~30%
        stays verbatim and no call is parted from its response. The split may fall between two model turns of the
        prompt that runs (after the answers to its calls)."""
        conversation, bus = self.state.conversation, self.state.bus
        window = self.context_window()
        before = compression.estimate_tokens(conversation)
        limit = self.threshold * window
        if not force and (before < limit or self._failed_at == conversation.revision):
            bus.publish(ContextUsed(before, window))
            return None
        split = compression.split_point(conversation)
        if split <= 0:
            self._failed_at = conversation.revision
            bus.publish(ContextUsed(before, window))
            return None
        await self.hook_points.pre_compress("manual" if force else "auto")
        shortened, changed = compression.shorten_old_outputs(conversation, split)
        summarised = False
        if changed and (compression.estimate_tokens(shortened) < limit and not force):
            new = shortened
        else:
            summary = await self._summarise(shortened[:split], abort)
            if summary is None:
                self._failed_at = conversation.revision
                bus.publish(ContextUsed(before, window))
                return None
            new = compression.replacement(summary, shortened[split:])
            summarised = True
        conversation.load(new)
        after = compression.estimate_tokens(conversation)
        result = compression.Compression(before, after, summarised)
        self.stats.compressions += 1
        self.stats.tokens_saved += result.saved
        self.state.record({"kind": "compressed", "before": before, "after": after, "summarised": summarised})
        bus.publish(HistoryCompressed(before, after, summarised))
        bus.publish(ContextUsed(after, window))
        return result

    async def _summarise(self, older: Sequence[Content], abort: AbortSignal) -> str | None:
        model = self.model()
        request = ModelRequest(compression.summary_request_contents(older), compression.COMPRESSION_INSTRUCTION, ())
        texts: list[str] = []
        started = time.monotonic()
        try:
            async for chunk in until_aborted(model.stream(request, abort), abort):
                match chunk:
                    case TextChunk(text=text):
                        texts.append(text)
                    case UsageChunk(usage=usage):
                        self.stats.model(model.model_name).tokens.add(usage)
                    case RetryChunk(discard_partial=True):
                        texts = []
        except ModelError as exc:
            self.stats.record_request(model.model_name, ms_since(started), exc.kind)
            self.state.bus.publish(Notice(f"Compressing the conversation failed ({exc.message}); it goes on "
                                          "uncompressed.", "warning"))
            return None
        self.stats.record_request(model.model_name, ms_since(started))
        summary = "".join(texts).strip()
        if abort.aborted or not summary:
            return None
        return summary


def ms_since(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
