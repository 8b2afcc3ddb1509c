"""The one typed channel from the core to its front ends (the app and the headless printer).

Events flow one way; the only way back is resolving a `ConfirmationRequested.future`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from gemini_tui.core.ground.call_state import READ_ONLY_RULE as READ_ONLY_RULE  # named here as before
from gemini_tui.core.ground.call_state import CallState
from gemini_tui.core.ground.confirmation import ConfirmationDetails, Decision

if TYPE_CHECKING:  # only an annotation here; importing core.tool (pydantic) would slow the app's first frame
    from gemini_tui.core.ground.tool_result import ToolResult


@dataclass(frozen=True)
class ToolCallInfo:
    """A snapshot of one call, carried by every call event."""

    call_id: str
    name: str
    args: dict[str, Any]
    state: CallState
    description: str = ""
    display_name: str = ""
    started_at: float = 0.0
    ended_at: float | None = None
    requested_by: str = "model"  # "model"; "user" (a `!command`, `/memory add`); "mention" (an `@path` read)
    # the approval policy's answer (allow / ask / deny), the rule that decided, and why (empty until decided)
    decision: str = ""
    rule: str = ""
    reason: str = ""
    outcome: str | None = None  # once decided, a core.stats.CallDecision value (accept, reject, modify, auto_accept)
    agent: str = ""  # the subagent that made the call ("" for the session's own model, the user)
    parent_call_id: str = ""  # that subagent's invoke_agent call


@dataclass(frozen=True)
class TurnStarted:
    prompt_id: str
    prompt: str


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ThoughtDelta:
    text: str


@dataclass(frozen=True)
class CallStateChanged:
    call: ToolCallInfo


@dataclass(frozen=True)
class ConfirmationRequested:
    """The front end resolves `future` with a `Decision`; the core awaits nothing else from it."""

    call: ToolCallInfo
    details: ConfirmationDetails
    future: asyncio.Future[Decision]


@dataclass(frozen=True)
class ContextUsed:
    """How full the model's context window is, estimated before each request (the status line shows it)."""

    tokens: int
    window: int

    @property
    def percent(self) -> int:
        return min(100, round(100 * self.tokens / self.window)) if self.window else 0


@dataclass(frozen=True)
class HistoryCompressed:
    """Older turns were condensed (`summarised` by the model, or only their large tool outputs shortened)."""

    before_tokens: int
    after_tokens: int
    summarised: bool


@dataclass(frozen=True)
class LoopSuspected:
    """The model seems to repeat itself (interactive sessions only): the front end asks the user and resolves
    `future` with True to keep going or False to stop. The stream waits for the answer."""

    message: str
    future: asyncio.Future[bool]


@dataclass(frozen=True)
class ToolOutputChunk:
    call_id: str
    chunk: str


@dataclass(frozen=True)
class CallFinished:
    call: ToolCallInfo
    result: ToolResult
    duration_ms: int  # the tool's own time, from when it started running (0 when it never ran)
    # the text of the FunctionResponse the model received (its `output`, or its `error`): front ends that record a
    # run (ACP's final update, an ATIF trajectory) report this, not the user's display
    sent: str = ""


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    candidates_tokens: int = 0
    thoughts_tokens: int = 0
    cached_tokens: int = 0
    tool_prompt_tokens: int = 0
    total_tokens: int = 0


@dataclass(frozen=True)
class UsageUpdated:
    model: str
    usage: Usage  # this request's usage (empty when the count changed without one: a saved session was resumed)
    session_total: int  # the conversation's tokens so far, a resumed session's earlier requests included


@dataclass(frozen=True)
class Retrying:
    attempt: int
    delay_s: float
    reason: str
    discard_partial: bool  # the stream broke part-way: text shown so far will be replaced


@dataclass(frozen=True)
class ErrorOccurred:
    message: str
    kind: str = "error"


@dataclass(frozen=True)
class Notice:
    """Something the user should know that is not an error (settings notices, offline model, ...)."""

    message: str
    level: str = "info"


class McpServerState(StrEnum):
    connecting = "connecting"
    connected = "connected"
    failed = "failed"
    disconnected = "disconnected"


@dataclass(frozen=True)
class McpServerStatusChanged:
    server: str
    state: McpServerState
    tool_count: int = 0
    message: str = ""  # the reason when failed; skipped tools when connected
    protocol: str = ""  # the protocol version the server speaks and its era, once connected


@dataclass(frozen=True)
class ApprovalModeChanged:
    """A tool changed the approval mode (entering or leaving plan mode); `reason` says why, for the user."""

    mode: str
    reason: str = ""


@dataclass(frozen=True)
class WaitingForServers:
    """A prompt waits (at most `timeout_s`) for MCP servers still connecting, so it can offer their tools; a front
    end may stop the wait (`SessionFace.stop_waiting`): the prompt then goes without them."""

    servers: tuple[str, ...]
    timeout_s: float


class TurnEndReason(StrEnum):
    completed = "completed"
    cancelled = "cancelled"
    error = "error"
    max_turns = "max_turns"
    loop_detected = "loop_detected"
    blocked = "blocked"  # a BeforeAgent hook blocked the prompt (Gemini CLI's AgentExecutionBlocked)
    stopped = "stopped"  # a hook's `continue: false` ended the agent loop (Gemini CLI's AgentExecutionStopped)


@dataclass(frozen=True)
class TurnFinished:
    prompt_id: str
    reason: TurnEndReason
    message: str = ""


Event = (
    TurnStarted | TextDelta | ThoughtDelta | CallStateChanged | ConfirmationRequested | LoopSuspected
    | ToolOutputChunk
    | CallFinished | UsageUpdated | Retrying | ErrorOccurred | Notice | TurnFinished | McpServerStatusChanged
    | ContextUsed | HistoryCompressed | WaitingForServers | ApprovalModeChanged
)


@dataclass
class _Subscriber:
    queue: asyncio.Queue[Event | None] = field(default_factory=asyncio.Queue)


class EventBus:
    """Fan-out of events to every subscriber, in order. Publishing never blocks."""

    def __init__(self) -> None:
        self._subscribers: list[_Subscriber] = []
        self._taps: list[Callable[[Event], None]] = []

    def publish(self, event: Event) -> None:
        for tap in self._taps:
            tap(event)
        for sub in self._subscribers:
            sub.queue.put_nowait(event)

    def tap(self, listener: Callable[[Event], None]) -> None:
        """Calls `listener` synchronously on every event as it is published (autosave must see each event
        before the turn can end; a queue read later could miss the last ones on a kill)."""
        self._taps.append(listener)

    def subscribe(self) -> AsyncIterator[Event]:
        """An async iterator of every event published from now on, until `close()`."""
        sub = _Subscriber()
        self._subscribers.append(sub)

        async def iterate() -> AsyncIterator[Event]:
            try:
                while (event := await sub.queue.get()) is not None:
                    yield event
            finally:
                if sub in self._subscribers:
                    self._subscribers.remove(sub)

        return iterate()

    def close(self) -> None:
        for sub in self._subscribers:
            sub.queue.put_nowait(None)
