"""One prompt run to its end: announced, its `@path` mentions read, gated by the agent hooks, then model turns and
tool calls until the model stops calling (or fails, loops, is cancelled, or runs out of turns)."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.debug_log import where_details
from gemini_tui.core.ground.events import ErrorOccurred, Notice, TurnEndReason, TurnFinished, TurnStarted
from gemini_tui.core.ground.mentions import MentionError, ResourceReader, expand_mentions
from gemini_tui.core.ground.model_api import ContentPart
from gemini_tui.core.ground.parts import Part, TextPart
from gemini_tui.core.ground.tool_result import ToolResult
from gemini_tui.core.persistence.records import PromptMark, prompt_position
from gemini_tui.core.session.abortable import unless_aborted
from gemini_tui.core.session.hook_points import HookPoints
from gemini_tui.core.session.loop_detection import LoopDetector
from gemini_tui.core.session.model_turn import ModelTurn
from gemini_tui.core.session.scheduler import Scheduler
from gemini_tui.core.session.state import SessionState
from gemini_tui.core.tooling.registry import ToolRegistry

log = logging.getLogger(__name__)
EMPTY_REPLY_RETRIES = 1  # an empty model reply is asked again this many times before the turn ends in an error


class TurnLoop:
    """Runs prompts, one at a time (the state's `busy`), publishing every step on the state's bus. `before` is
    awaited first (the wait for MCP servers still connecting, which Esc ends); `resources` reads `@server:uri`."""

    def __init__(self, state: SessionState, model_turn: ModelTurn, scheduler: Scheduler, registry: ToolRegistry,
                 hook_points: HookPoints, *, max_turns: int, detect_loops: bool,
                 before: Callable[[], Awaitable[None]], resources: ResourceReader | None) -> None:
        self.state = state
        self.model_turn = model_turn
        self.scheduler = scheduler
        self.registry = registry
        self.hook_points = hook_points
        self.max_turns = max_turns
        self.detect_loops = detect_loops
        self.before = before
        self.resources = resources

    async def send(self, prompt: str | list[Part]) -> TurnEndReason:
        """Runs one user prompt until the model ends its turn with no calls (or stops, fails, is cancelled).
        In a text prompt, `@path` mentions are read through `read_many_files` and sent after the text."""
        state, bus = self.state, self.state.bus
        async with state.busy:
            abort = state.abort = AbortSignal()
            await unless_aborted(self.before(), abort)
            prompt_id = uuid.uuid4().hex[:12]
            shown = prompt if isinstance(prompt, str) else "".join(p.text for p in prompt if isinstance(p, TextPart))
            state.prompt_marks.append(PromptMark(shown, prompt_position(state.conversation)))
            bus.publish(TurnStarted(prompt_id, shown))
            try:
                parts = await self._prompt_parts(prompt, abort)
                gate = await self.hook_points.before_agent(parts, shown)
                if gate.keep:
                    state.conversation.append_user(gate.parts)
                    state.autosave()
                reason, message = gate.end or await self.hook_points.after_agent(shown, await self.run(abort), abort)
            except MentionError as exc:
                # nothing was sent: the prompt stays out of the conversation
                reason, message = ((TurnEndReason.cancelled, "Request cancelled.") if abort.aborted
                                   else (TurnEndReason.error, str(exc)))
                if not abort.aborted:
                    bus.publish(ErrorOccurred(message, "mention"))
            except asyncio.CancelledError:
                # the front end cancelled the task itself (not through cancel()): stop the calls, keep the history
                # valid, and still end the turn for every subscriber
                abort.abort("the task running the prompt was cancelled")
                state.conversation.answer_pending("The request was cancelled before this call ran.")
                bus.publish(TurnFinished(prompt_id, TurnEndReason.cancelled, "Request cancelled."))
                raise
            except Exception as exc:  # a bug in the loop must end the prompt visibly, not hang the front end
                log.exception("the turn loop failed")
                reason, message = TurnEndReason.error, (f"Internal error: {type(exc).__name__}: {exc}"
                                                        f"{where_details()}")
                state.conversation.answer_pending(message)
                bus.publish(ErrorOccurred(message, "internal"))
            finally:
                state.abort = None
                state.autosave(end=True)
            bus.publish(TurnFinished(prompt_id, reason, message))
            return reason

    async def _prompt_parts(self, prompt: str | list[Part], abort: AbortSignal) -> list[ContentPart]:
        if not isinstance(prompt, str):
            return list(prompt)

        async def read_files(args: dict[str, Any]) -> ToolResult:
            return await self.scheduler.run_for_user("read_many_files", args, abort, requested_by="mention")

        reader = read_files if "read_many_files" in self.registry else None
        expanded = await expand_mentions(prompt, reader, self.resources)
        return [TextPart(expanded)] if isinstance(expanded, str) else list(expanded)

    async def run(self, abort: AbortSignal) -> tuple[TurnEndReason, str]:
        """Model turns and their calls, from the conversation as it is, until the model calls nothing more."""
        bus, conversation = self.state.bus, self.state.conversation
        detector = LoopDetector(enabled=self.detect_loops)
        empty_replies = 0
        for _ in range(self.max_turns):
            outcome = await self.model_turn.stream(abort, detector)
            if isinstance(outcome, tuple):
                return outcome
            calls = outcome
            if not calls and self.model_turn.reply_was_empty:
                # an empty reply would end the turn with nothing shown: ask once more, then say so
                empty_replies += 1
                if empty_replies <= EMPTY_REPLY_RETRIES:
                    bus.publish(Notice("The model sent an empty reply; asking again.", "warning"))
                    continue
                message = ("The model sent an empty reply twice; nothing to show. Send the prompt again or "
                           "rephrase it.")
                bus.publish(ErrorOccurred(message, "empty_reply"))
                return TurnEndReason.error, message
            if not calls:
                return TurnEndReason.completed, ""
            for call in calls:
                if (loop := detector.check_call(call)) is not None:
                    # every FunctionCall needs its FunctionResponse, even when the loop stops before running it
                    conversation.answer_pending(loop)
                    bus.publish(ErrorOccurred(loop, "loop_detected"))
                    return TurnEndReason.loop_detected, loop
            responses = await self.scheduler.run(calls, abort)
            conversation.append_responses(responses)
            self.state.autosave()
            if (stopped := self.hook_points.stop_requested()) is not None:  # a tool hook's continue: false
                return stopped
            if abort.aborted:
                return TurnEndReason.cancelled, "Request cancelled."
        message = (f"Stopped after {self.max_turns} model turns for one prompt (model.maxSessionTurns). "
                   "Send another prompt to continue.")
        bus.publish(ErrorOccurred(message, "max_turns"))
        return TurnEndReason.max_turns, message
