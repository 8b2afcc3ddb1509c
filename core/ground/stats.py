"""Session statistics: tokens per model, calls and decisions per tool, lines added and removed."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from gemini_tui.core.ground.events import Usage


class CallDecision(StrEnum):
    """How a call came to run (or not): the user accepted, rejected or modified it, or nothing had to ask."""

    accept = "accept"
    reject = "reject"
    modify = "modify"
    auto_accept = "auto_accept"


@dataclass
class TokenCounts:
    prompt: int = 0
    candidates: int = 0
    thoughts: int = 0
    cached: int = 0
    tool: int = 0
    total: int = 0

    def add(self, usage: Usage) -> None:
        self.prompt += usage.prompt_tokens
        self.candidates += usage.candidates_tokens
        self.thoughts += usage.thoughts_tokens
        self.cached += usage.cached_tokens
        self.tool += usage.tool_prompt_tokens
        self.total += usage.total_tokens


@dataclass
class ModelStats:
    requests: int = 0
    errors: int = 0
    latency_ms: int = 0
    errors_by_type: dict[str, int] = field(default_factory=dict)
    tokens: TokenCounts = field(default_factory=TokenCounts)


def _no_decisions() -> dict[CallDecision, int]:
    return dict.fromkeys(CallDecision, 0)


@dataclass
class ToolStats:
    count: int = 0
    success: int = 0
    fail: int = 0
    duration_ms: int = 0
    decisions: dict[CallDecision, int] = field(default_factory=_no_decisions)


@dataclass
class SessionStats:
    models: dict[str, ModelStats] = field(default_factory=dict)
    tools: dict[str, ToolStats] = field(default_factory=dict)
    lines_added: int = 0
    lines_removed: int = 0
    compressions: int = 0
    tokens_saved: int = 0  # estimated, by context compression
    carried_tokens: int = 0  # what a resumed session's requests used before this run (its saved usage records)
    carried_at: int = 0  # this run's total when that session was resumed: what came before was another conversation

    def model(self, name: str) -> ModelStats:
        return self.models.setdefault(name, ModelStats())

    def tool(self, name: str) -> ToolStats:
        return self.tools.setdefault(name, ToolStats())

    def record_request(self, model: str, latency_ms: int, error_kind: str | None = None) -> None:
        stats = self.model(model)
        stats.requests += 1
        stats.latency_ms += latency_ms
        if error_kind is not None:
            stats.errors += 1
            stats.errors_by_type[error_kind] = stats.errors_by_type.get(error_kind, 0) + 1

    def record_call(self, name: str, ok: bool, duration_ms: int, decision: CallDecision | None) -> None:
        stats = self.tool(name)
        stats.count += 1
        stats.success += ok
        stats.fail += not ok
        stats.duration_ms += duration_ms
        if decision is not None:
            stats.decisions[decision] += 1

    @property
    def total_tokens(self) -> int:
        return sum(m.tokens.total for m in self.models.values())

    def carry(self, tokens: int) -> None:
        """A saved session was resumed: the conversation's count goes on from the `tokens` its requests used."""
        self.carried_tokens, self.carried_at = tokens, self.total_tokens

    @property
    def conversation_tokens(self) -> int:
        """The status line's count: the tokens the conversation's requests used, a resumed session's included
        (the per-model counts and `total_tokens` stay this run's own, as `/stats` and `-o json` report them)."""
        return self.carried_tokens + self.total_tokens - self.carried_at

    @property
    def total_calls(self) -> int:
        return sum(t.count for t in self.tools.values())

    def decisions(self) -> dict[CallDecision, int]:
        totals = _no_decisions()
        for tool in self.tools.values():
            for decision, count in tool.decisions.items():
                totals[decision] += count
        return totals
