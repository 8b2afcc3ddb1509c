"""ATIF trajectories: a headless run's events as Harbor's Agent Trajectory Interchange Format (`-o atif`,
`--trajectory FILE`).

A step per prompt (source `user`) and per model response (source `agent`: its text, thoughts, function calls,
token counts), each call's observation being the text the model received for it. Written as plain JSON in the
newest schema the harbor package defines (ATIF-v1.8; its pydantic `Trajectory` validates it in tests/harbor)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gemini_tui.core.ground.events import (
    CallFinished,
    CallStateChanged,
    ErrorOccurred,
    Event,
    Retrying,
    TextDelta,
    ThoughtDelta,
    TurnFinished,
    TurnStarted,
    Usage,
    UsageUpdated,
)

SCHEMA_VERSION = "ATIF-v1.8"
AGENT_NAME = "gemini-tui"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class _Step:
    """One step as it is being recorded."""

    source: str
    timestamp: str
    model_name: str | None = None
    text: list[str] = field(default_factory=list)
    thoughts: list[str] = field(default_factory=list)
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)  # call id -> ATIF tool call
    observations: dict[str, str] = field(default_factory=dict)  # call id -> what the model received
    usage: Usage | None = None

    @property
    def closed(self) -> bool:
        """The response is over: its usage came (always last in a response), or its calls were all answered (they
        run only after the response)."""
        return self.usage is not None or (bool(self.calls) and self.calls.keys() <= self.observations.keys())

    def as_atif(self, step_id: int) -> dict[str, Any]:
        step: dict[str, Any] = {"step_id": step_id, "timestamp": self.timestamp, "source": self.source,
                                "message": "".join(self.text)}
        if self.source != "agent":
            return step
        if self.model_name:
            step["model_name"] = self.model_name
        if self.thoughts:
            step["reasoning_content"] = "".join(self.thoughts)
        if self.calls:
            step["tool_calls"] = list(self.calls.values())
            # a call that never finished (the run was cancelled) has no observation: the model received none
            step["observation"] = {"results": [{"source_call_id": call_id, "content": self.observations[call_id]}
                                               for call_id in self.calls if call_id in self.observations]}
        if self.usage is not None:
            step["metrics"] = _metrics(self.usage)
        step["llm_call_count"] = 1
        return step


def _metrics(usage: Usage) -> dict[str, Any]:
    metrics: dict[str, Any] = {"prompt_tokens": usage.prompt_tokens,
                               "completion_tokens": usage.candidates_tokens + usage.thoughts_tokens,
                               "cached_tokens": usage.cached_tokens}
    extra = {"thoughts_tokens": usage.thoughts_tokens, "tool_prompt_tokens": usage.tool_prompt_tokens}
    if any(extra.values()):
        metrics["extra"] = extra
    return metrics


class TrajectoryRecorder:
    """Taps a session's bus (synchronously, so no event is missed at the end of a run) and builds its ATIF
    document. Only the model's own calls are steps: an `@path` read or a `!command` is part of the prompt."""

    def __init__(self, session_id: str, model_name: str, version: str) -> None:
        self.session_id = session_id
        self.model_name = model_name
        self.version = version
        self.steps: list[_Step] = []
        self.error: str | None = None
        self.end_reason: str | None = None

    @property
    def _current(self) -> _Step | None:
        return self.steps[-1] if self.steps and self.steps[-1].source == "agent" else None

    def _agent_step(self) -> _Step:
        """The step of the model response streaming now: a new one once the last is closed."""
        step = self._current
        if step is None or step.closed:
            step = _Step("agent", _now(), self.model_name)
            self.steps.append(step)
        return step

    def on_event(self, event: Event) -> None:
        match event:
            case TurnStarted(prompt=prompt):
                self.steps.append(_Step("user", _now(), text=[prompt]))
            case TextDelta(text=text):
                self._agent_step().text.append(text)
            case ThoughtDelta(text=text):
                self._agent_step().thoughts.append(text)
            case UsageUpdated(model=model, usage=usage) if usage.total_tokens or usage.prompt_tokens:
                step = self._agent_step()
                step.usage = usage
                step.model_name = model
            case Retrying(discard_partial=True):
                if (step := self._current) is not None and not step.calls:
                    step.text.clear()
                    step.thoughts.clear()
            case CallStateChanged(call=call) if call.requested_by == "model":
                step = self._current
                if step is None or (call.call_id not in step.calls and (
                        step.calls.keys() <= step.observations.keys() and bool(step.calls))):
                    step = self._agent_step()  # a response of calls alone, without usage
                step.calls.setdefault(call.call_id, {"tool_call_id": call.call_id, "function_name": call.name,
                                                     "arguments": dict(call.args)})
            case CallFinished(call=call, sent=sent) if call.requested_by == "model":
                for step in reversed(self.steps):
                    if call.call_id in step.calls:
                        step.observations[call.call_id] = sent
                        break
            case ErrorOccurred(message=message):
                self.error = message
            case TurnFinished(reason=reason):
                self.end_reason = reason.value

    def document(self) -> dict[str, Any]:
        """The trajectory so far, as ATIF JSON."""
        steps = [step.as_atif(index) for index, step in enumerate(self.steps, 1)]
        agent_steps = [s for s in self.steps if s.source == "agent" and s.usage is not None]
        usages = [s.usage for s in agent_steps if s.usage is not None]
        final = {"total_prompt_tokens": sum(u.prompt_tokens for u in usages),
                 "total_completion_tokens": sum(u.candidates_tokens + u.thoughts_tokens for u in usages),
                 "total_cached_tokens": sum(u.cached_tokens for u in usages),
                 "total_steps": len(steps)}
        extra: dict[str, Any] = {}
        if self.end_reason is not None:
            extra["end_reason"] = self.end_reason
        if self.error is not None:
            extra["error"] = self.error
        document: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION, "session_id": self.session_id,
            "agent": {"name": AGENT_NAME, "version": self.version, "model_name": self.model_name},
            "steps": steps, "final_metrics": final}
        if extra:
            document["extra"] = extra
        return document

    def write(self, path: Path) -> None:
        """Replaces `path` atomically with the trajectory (a reader never sees half a file)."""
        from gemini_tui.core.ground.text_boundary import json_text
        from gemini_tui.core.persistence.private_file import write_private

        path.parent.mkdir(parents=True, exist_ok=True)
        write_private(path, json_text(self.document(), indent=2) + "\n")
