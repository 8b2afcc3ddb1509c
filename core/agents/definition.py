"""Agents room: what one subagent is (its definition, as Gemini CLI 0.61's agent files and built-ins describe it)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

INHERIT = "inherit"  # the model the session uses at the moment of the call
DEFAULT_MAX_TURNS = 30
DEFAULT_TIMEOUT_MINUTES = 10
DEFAULT_QUERY = "Get Started!"  # the first message when the query names no input (Gemini CLI's words)
_PLACEHOLDER = re.compile(r"\$\{(\w+)\}")


class AgentSource(StrEnum):
    builtin = "built-in"
    project = "project"
    user = "user"
    extension = "extension"


@dataclass(frozen=True)
class OutputShape:
    """What `complete_task` takes: one argument `name`, with this JSON schema (None: Gemini CLI's `result`)."""

    name: str
    schema: dict[str, Any]
    description: str = ""


@dataclass(frozen=True)
class AgentDefinition:
    """One subagent. `tools` None gives it every tool the session has (never more); names may end in `*`
    (`mcp_*`, `mcp_<server>_*`, `*`). `query` is the first message, with `${input}` filled from the prompt."""

    name: str
    description: str
    system_prompt: str
    display_name: str = ""
    model: str = INHERIT
    temperature: float | None = None
    max_turns: int = DEFAULT_MAX_TURNS
    timeout_minutes: float = DEFAULT_TIMEOUT_MINUTES
    tools: tuple[str, ...] | None = None
    mcp_servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    input_name: str = "query"  # the one input the call's `prompt` fills
    query: str = "${query}"
    output: OutputShape | None = None
    source: AgentSource = AgentSource.user
    path: Path | None = None
    hash: str = ""  # sha256 of the file, for the acknowledgement of a project's agents
    enabled: bool = True
    plan_description: str = ""  # said instead of `description` in plan mode (the generalist's)

    def description_in(self, plan_mode: bool) -> str:
        return self.plan_description if plan_mode and self.plan_description else self.description

    @property
    def title(self) -> str:
        return self.display_name or self.name

    def first_message(self, prompt: str) -> str:
        return fill(self.query, {self.input_name: prompt}) if self.query else DEFAULT_QUERY

    def with_overrides(self, override: dict[str, Any]) -> AgentDefinition:
        """`agents.overrides.<name>`: enabled, modelConfig.model, runConfig.maxTurns / maxTimeMinutes, tools."""
        changed = self
        if isinstance(override.get("enabled"), bool):
            changed = replace(changed, enabled=override["enabled"])
        model_config = override.get("modelConfig")
        if isinstance(model_config, dict) and isinstance(model_config.get("model"), str):
            changed = replace(changed, model=model_config["model"])
        run_config = override.get("runConfig")
        if isinstance(run_config, dict):
            turns, minutes = run_config.get("maxTurns"), run_config.get("maxTimeMinutes")
            if isinstance(turns, int) and not isinstance(turns, bool) and turns > 0:
                changed = replace(changed, max_turns=turns)
            if isinstance(minutes, int | float) and not isinstance(minutes, bool) and minutes > 0:
                changed = replace(changed, timeout_minutes=float(minutes))
        tools = override.get("tools")
        if isinstance(tools, list) and all(isinstance(t, str) for t in tools):
            changed = replace(changed, tools=tuple(tools))
        return changed


def fill(template: str, inputs: dict[str, str]) -> str:
    """`${name}` replaced by its input; an unknown one is an error naming what is there (as Gemini CLI)."""
    missing = [key for key in _PLACEHOLDER.findall(template) if key not in inputs]
    if missing:
        raise ValueError(f"missing input(s) {', '.join(missing)}; available: {', '.join(inputs)}")
    return _PLACEHOLDER.sub(lambda m: inputs[m.group(1)], template)
