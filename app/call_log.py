"""One record per tool call, kept by the app: the chat card, the live queue and the history panel all render
from these records, which the event adapter updates once per event."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gemini_tui.core.ground.call_state import READ_ONLY_RULE, CallState

if TYPE_CHECKING:
    from gemini_tui.core.ground.events import ToolCallInfo
    from gemini_tui.core.ground.tool_result import ToolResult

TAIL_LINES = 20  # live output lines a record keeps (the queue shows the last one)

# who decided whether a call ran, from its decision and whether the user was asked
DECIDED_BY_USER = "you"
DECIDED_BY_POLICY = "approval mode or allow rule"
NOT_ASKED = "no confirmation needed"


@dataclass(eq=False)
class CallRecord:
    """Everything the app knows of one call: its latest snapshot, live output, result and timings."""

    call: ToolCallInfo
    result: ToolResult | None = None
    duration_ms: int | None = None  # the core's figure: the tool's own time (0 when it never ran)
    output_tail: deque[str] = field(default_factory=lambda: deque(maxlen=TAIL_LINES))
    error: str = ""  # the first line of a failed call's error
    asked_at: float | None = None  # monotonic: while it waits for the user's approval, since when
    waited_s: float = 0.0  # how long it waited for the user
    was_asked: bool = False
    ran_at: float | None = None  # monotonic: when it started running (or ended, when it never ran)
    ended_at: float | None = None  # monotonic
    revision: int = 0  # bumped on every change: renderers compare it to skip work

    @property
    def call_id(self) -> str:
        return self.call.call_id

    @property
    def state(self) -> CallState:
        return self.call.state

    @property
    def last_output(self) -> str:
        return self.output_tail[-1] if self.output_tail else ""

    @property
    def decision(self) -> str | None:
        """How it came to run or not: a core.stats.CallDecision value (accept, reject, modify, auto_accept)."""
        return self.call.outcome

    @property
    def decided_by(self) -> str | None:
        """Who let the call run or stopped it: the user (asked, or they ran it), the approval mode or an allow
        rule or grant, or nobody (no confirmation needed)."""
        outcome = self.call.outcome
        if outcome is None:
            return None
        if self.was_asked or self.call.requested_by != "model":
            return DECIDED_BY_USER
        if outcome != "auto_accept":
            return DECIDED_BY_USER  # the core gives accept, reject and modify only on the user's answer
        # "ask" then auto_accept: the tool found nothing to review (the call fails on its own)
        if self.call.rule == READ_ONLY_RULE or self.call.decision == "ask":
            return NOT_ASKED
        return DECIDED_BY_POLICY

    def tool_seconds(self, now: float) -> float | None:
        """The tool's own time: the core's duration once it ended (it counts from when the tool started running,
        so neither the wait for the user nor for the calls before it); while running, since it started (`now`
        is monotonic); None before it runs, or when the core gave no times."""
        if self.duration_ms is not None:
            return self.duration_ms / 1000
        if self.call.state is not CallState.executing or self.ran_at is None or not self.call.started_at:
            return None
        return max(0.0, now - self.ran_at)

    def waiting_s(self, now: float | None = None) -> float:
        """Seconds spent waiting for the user, counting a wait still going on."""
        if self.asked_at is None:
            return self.waited_s
        return self.waited_s + max(0.0, (now if now is not None else time.monotonic()) - self.asked_at)


class CallLog:
    """The records of the session's calls, by call id, in the order they appeared."""

    def __init__(self) -> None:
        self._records: dict[str, CallRecord] = {}
        self._children: dict[str, list[CallRecord]] = {}  # an invoke_agent call's id -> its subagent's calls

    def __len__(self) -> int:
        return len(self._records)

    def __contains__(self, call_id: object) -> bool:
        return call_id in self._records

    def get(self, call_id: str) -> CallRecord | None:
        return self._records.get(call_id)

    def records(self) -> list[CallRecord]:
        return list(self._records.values())

    def children(self, call_id: str) -> list[CallRecord]:
        """The calls a subagent made under the invoke_agent call `call_id`, in the order they appeared."""
        return list(self._children.get(call_id, ()))

    def update(self, call: ToolCallInfo) -> CallRecord:
        """A call appeared or changed state."""
        record = self._records.get(call.call_id)
        if record is None:
            record = self._records[call.call_id] = CallRecord(call)
            if call.parent_call_id:
                self._children.setdefault(call.parent_call_id, []).append(record)
        record.call = call
        now = time.monotonic()
        if call.state is CallState.awaiting_approval and record.asked_at is None:
            record.asked_at, record.was_asked = now, True
        elif call.state is not CallState.awaiting_approval and record.asked_at is not None:
            record.waited_s += now - record.asked_at
            record.asked_at = None
        if call.state is CallState.executing and record.ran_at is None:
            record.ran_at = now
        record.revision += 1
        return record

    def add_output(self, call_id: str, chunk: str) -> CallRecord | None:
        """Live output of a running call; only its last lines are kept."""
        record = self._records.get(call_id)
        if record is None:
            return None
        lines = [line for line in chunk.splitlines() if line.strip()]
        if not lines:
            return None
        record.output_tail.extend(lines)
        record.revision += 1
        return record

    def finish(self, call: ToolCallInfo, result: ToolResult, duration_ms: int) -> CallRecord:
        """A call ended: its result and the tool's duration."""
        record = self.update(call)
        record.result, record.duration_ms = result, duration_ms
        record.ended_at = time.monotonic()
        if record.ran_at is None:  # ended before running (refused, invalid): no tool time
            record.ran_at = record.ended_at
        message = result.error.message.strip() if result.error is not None else ""
        record.error = message.splitlines()[0] if message else ""
        return record

    def clear(self) -> None:
        self._records.clear()
        self._children.clear()
