"""Where a tool call stands: its states, and the rule named when a call ran without asking (the first frame's
widgets need these words, not the events that carry them)."""

from __future__ import annotations

from enum import StrEnum

READ_ONLY_RULE = "read-only tool"  # the rule that lets a call run because it needs no confirmation at all


class CallState(StrEnum):
    validating = "validating"
    awaiting_approval = "awaiting_approval"
    scheduled = "scheduled"
    executing = "executing"
    success = "success"
    error = "error"
    cancelled = "cancelled"

    @property
    def is_final(self) -> bool:
        return self in (CallState.success, CallState.error, CallState.cancelled)
