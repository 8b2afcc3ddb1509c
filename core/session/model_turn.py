"""One model request of the turn loop: the conversation sent, the reply streamed into events and history."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from gemini_tui.core.ground.abort import AbortSignal, finished_unless_aborted
from gemini_tui.core.ground.events import (
    ContextUsed,
    ErrorOccurred,
    LoopSuspected,
    Notice,
    Retrying,
    TextDelta,
    ThoughtDelta,
    TurnEndReason,
    UsageUpdated,
)
from gemini_tui.core.ground.model_api import (
    CallChunk,
    ContentPart,
    CutShortChunk,
    FunctionCall,
    ModelClient,
    ModelError,
    ModelRequest,
    RetryChunk,
    TextChunk,
    ThoughtChunk,
    ThoughtPart,
    UsageChunk,
)
from gemini_tui.core.ground.parts import TextPart
from gemini_tui.core.ground.stats import SessionStats
from gemini_tui.core.session.abortable import until_aborted
from gemini_tui.core.session.compressor import Compressor, ms_since
from gemini_tui.core.session.hook_points import HOOK_BLOCKED, HOOK_STOPPED, HookPoints
from gemini_tui.core.session.loop_detection import LoopDetector
from gemini_tui.core.session.state import SessionState
from gemini_tui.core.tooling.registry import ToolRegistry


class ModelTurn:
    """Sends the conversation (compressed first when it must be) and turns the streamed reply into events, stats
    and one model entry of the history. `interactive` says whether a suspected loop can be put to the user."""

    def __init__(self, state: SessionState, stats: SessionStats, model: Callable[[], ModelClient],
                 registry: ToolRegistry, compressor: Compressor, instruction: Callable[[], str],
                 interactive: Callable[[], bool], hook_points: HookPoints) -> None:
        self.state = state
        self.stats = stats
        self.model = model
        self.registry = registry
        self.compressor = compressor
        self.instruction = instruction
        self.interactive = interactive
        self.reply_was_empty = False  # the last reply had no text and no calls
        self.hook_points = hook_points  # the model events' hooks fire here
        self._declared: tuple[tuple[tuple[int, str], ...], tuple[dict[str, Any], ...]] | None = None

    def declarations(self) -> tuple[dict[str, Any], ...]:
        """The registry's function declarations, rebuilt only when its tools change (MCP servers connect late)."""
        key = tuple((id(tool), tool.name) for tool in self.registry.offered())
        if self._declared is None or self._declared[0] != key:
            self._declared = key, tuple(self.registry.function_declarations())
        return self._declared[1]

    async def stream(self, abort: AbortSignal,
                     detector: LoopDetector) -> list[FunctionCall] | tuple[TurnEndReason, str]:
        """One model request. Returns its calls, or why the prompt ends here."""
        state, bus = self.state, self.state.bus
        await self.compressor.maybe_compress(abort)
        model = self.model()
        request = ModelRequest(state.conversation.snapshot(), self.instruction(), self.declarations())
        parts: list[ContentPart] = []
        calls: list[FunctionCall] = []
        started = time.monotonic()
        stopped: tuple[TurnEndReason, str] | None = None
        try:
            async for chunk in until_aborted(self.hook_points.model_stream(model, request, abort), abort):
                if abort.aborted:
                    break
                match chunk:
                    case TextChunk(text=text):
                        _append_text(parts, text)
                        bus.publish(TextDelta(text))
                        if (loop := detector.check_text(text)) is not None:
                            if await self._user_keeps_going(abort):
                                detector.keep_going()
                                continue
                            stopped = TurnEndReason.loop_detected, loop
                            bus.publish(ErrorOccurred(loop, "loop_detected"))
                            break
                    case ThoughtChunk(text=text, signature=signature):
                        parts.append(ThoughtPart(text, signature))
                        bus.publish(ThoughtDelta(text))
                    case CallChunk(call=call):
                        parts.append(call)
                        calls.append(call)
                    case UsageChunk(usage=usage):
                        self.stats.model(model.model_name).tokens.add(usage)
                        bus.publish(UsageUpdated(model.model_name, usage, self.stats.conversation_tokens))
                        # a client that knows its window (an OpenAI-compatible server's) has the server's count
                        # of the context too, which beats our estimate; Gemini's share stays the estimate
                        if usage.prompt_tokens and getattr(model, "context_window", None):
                            bus.publish(ContextUsed(usage.prompt_tokens + usage.candidates_tokens,
                                                    self.compressor.context_window()))
                    case CutShortChunk(finish_reason=finish):
                        bus.publish(Notice(cut_short_message(finish), "warning"))
                    case RetryChunk(attempt=attempt, delay_s=delay, reason=why, discard_partial=discard, kind=kind):
                        # the failed attempt was a request too, and an error: count it as one
                        self.stats.record_request(model.model_name, ms_since(started), kind)
                        started = time.monotonic()
                        if discard:
                            parts, calls = [], []
                        bus.publish(Retrying(attempt, delay, why, discard))
        except ModelError as exc:
            if exc.kind == HOOK_BLOCKED:  # a BeforeModel hook said no: the turn ends, quietly
                bus.publish(Notice(exc.message, "warning"))
                return TurnEndReason.completed, ""
            if exc.kind == HOOK_STOPPED:  # a model hook's continue: false ends the agent loop, not in error
                state.conversation.keep_partial(parts)
                return TurnEndReason.stopped, exc.message
            self.stats.record_request(model.model_name, ms_since(started), exc.kind)
            bus.publish(ErrorOccurred(exc.message, exc.kind))
            state.conversation.keep_partial(parts)
            return TurnEndReason.error, exc.message
        self.stats.record_request(model.model_name, ms_since(started))
        if abort.aborted or stopped is not None:
            # text the user saw stays in history; calls that never ran are dropped with it (they have no answer)
            state.conversation.keep_partial(parts)
            return stopped or (TurnEndReason.cancelled, "Request cancelled.")
        self.reply_was_empty = not calls and not any(isinstance(p, TextPart) and p.text.strip() for p in parts)
        if self.reply_was_empty:
            return calls  # nothing to keep (a thought alone would leave the history ending on the model)
        state.conversation.append_model(parts)
        state.autosave()
        return calls

    async def _user_keeps_going(self, abort: AbortSignal) -> bool:
        """In the app, a suspected text loop is the user's call: True when they say keep going. Headless runs
        (nobody to ask) stop."""
        if not self.interactive() or abort.aborted:
            return False
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.state.bus.publish(LoopSuspected("The model seems to repeat itself.", future))
        if not await finished_unless_aborted(future, abort) or future.cancelled():
            return False
        return future.result() is True


def _append_text(parts: list[ContentPart], text: str) -> None:
    if parts and isinstance(parts[-1], TextPart):
        parts[-1] = TextPart(parts[-1].text + text)
    else:
        parts.append(TextPart(text))


_CUT_SHORT = {
    "MAX_TOKENS": "it reached the model's output token limit",
    "SAFETY": "the model's safety filters stopped it",
    "RECITATION": "it started to recite a source verbatim",
    "MALFORMED_FUNCTION_CALL": "the model wrote a malformed function call",
}


def cut_short_message(finish_reason: str) -> str:
    why = _CUT_SHORT.get(finish_reason, "the model stopped early")
    return f"The answer was cut short: {why} (finish reason {finish_reason}). Ask to continue, or narrow the request."
