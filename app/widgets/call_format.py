"""How one tool call reads in a line: state icon, name, description, elapsed time (shared by cards and queue)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from gemini_tui.core.agents.tool_names import INVOKE_AGENT
from gemini_tui.core.ground.call_state import CallState

if TYPE_CHECKING:
    from gemini_tui.core.ground.events import ToolCallInfo

STATE_ICONS: dict[CallState, str] = {
    CallState.validating: "○",
    CallState.awaiting_approval: "?",
    CallState.scheduled: "◌",
    CallState.executing: "◐",
    CallState.success: "✓",
    CallState.error: "✗",
    CallState.cancelled: "⊘",
}

def rejected(call: ToolCallInfo) -> bool:
    """A call the user turned down (not one cancelled with its turn)."""
    return call.state is CallState.cancelled and call.outcome == "reject"


def state_word(call: ToolCallInfo) -> str:
    """The state as the chat says it: a call the user rejected is "rejected", not "cancelled"."""
    return "rejected" if rejected(call) else STATE_WORDS[call.state]


STATE_WORDS: dict[CallState, str] = {
    CallState.validating: "waiting",
    CallState.awaiting_approval: "awaiting approval",
    CallState.scheduled: "waiting",
    CallState.executing: "running",
    CallState.success: "done",
    CallState.error: "failed",
    CallState.cancelled: "cancelled",
}


def elapsed_seconds(call: ToolCallInfo, now: float | None = None) -> float:
    """Seconds since the call started (or its full duration once ended); 0 when the core gave no times."""
    if not call.started_at:
        return 0.0
    if call.ended_at is not None:
        end = call.ended_at
    elif now is not None:
        end = now
    else:
        # the core may stamp calls with wall-clock or monotonic time; pick the clock the stamp came from
        end = time.time() if call.started_at > 1e9 else time.monotonic()
    return max(0.0, end - call.started_at)


def format_elapsed(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1000:.0f}ms"
    if seconds < 10:
        return f"{seconds:.1f}s"
    if seconds < 60:
        return f"{seconds:.0f}s"
    return f"{int(seconds // 60)}m{int(seconds % 60):02d}s"


def is_agent_call(call: ToolCallInfo) -> bool:
    """An `invoke_agent` call: the app shows it as its subagent's group (its name, its own calls, its result)."""
    return call.name == INVOKE_AGENT


def invoked_agent(call: ToolCallInfo) -> str:
    """The subagent an `invoke_agent` call starts (its `agent_name`)."""
    name = call.args.get("agent_name")
    return name if isinstance(name, str) and name else "subagent"


def call_title(call: ToolCallInfo) -> str:
    if is_agent_call(call):
        return f"@{invoked_agent(call)}"  # the agent, as a prompt's `@name` calls it
    return call.display_name or call.name


def asked_by(call: ToolCallInfo, title: str) -> str:
    """A confirmation's title, naming the subagent that asks (the session's own calls keep theirs)."""
    return f"Subagent {call.agent}: {title}" if call.agent else title


TARGET_ARGS = ("file_path", "absolute_path", "path", "dir_path", "command", "pattern", "url", "query", "prompt")


def call_target(call: ToolCallInfo) -> str:
    """What the call is about: its description, or (a call that failed before it had one) the argument that
    names its target, so a failed row still says which file or command it was. A subagent's: its task."""
    if is_agent_call(call) and isinstance(prompt := call.args.get("prompt"), str) and prompt.strip():
        return prompt
    if call.description:
        return call.description
    for key in TARGET_ARGS:
        value = call.args.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def short(text: str, limit: int = 100) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"

STATE_STYLES: dict[CallState, str] = {
    CallState.validating: "$text-muted",
    CallState.awaiting_approval: "$text-warning",
    CallState.scheduled: "$text-muted",
    CallState.executing: "$text-accent",
    CallState.success: "$text-success",
    CallState.error: "$text-error",
    CallState.cancelled: "$text-warning",
}
