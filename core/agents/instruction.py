"""Agents room: the system instruction's `# Available Sub-Agents` section, shaped as Gemini CLI 0.61 shapes it
(a `- name -> description` list for older models, `<subagent>` entries for Gemini 3 and later)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from gemini_tui.core.agents.definition import AgentDefinition
from gemini_tui.core.agents.tool_choice import INVOKE_AGENT


def modern_model(model: str) -> bool:
    return bool(re.match(r"^(models/)?gemini-(3|[4-9])", model))


def agents_section(agents: Sequence[AgentDefinition], model: str, plan_mode: bool = False) -> str:
    """The section listing `agents` (empty when there are none)."""
    if not agents:
        return ""
    how = (f"Call the `{INVOKE_AGENT}` tool with an agent's name in `agent_name` and the whole task in `prompt`. "
           "Each agent works in its own conversation and returns one result, so delegating keeps this "
           "conversation short. Send work to the agent whose expertise fits it best; run several at once only "
           "when none of them changes files or resources another one uses.")
    if modern_model(model):
        entries = "\n".join(f"  <subagent>\n    <name>{a.name}</name>\n    <description>"
                            f"{a.description_in(plan_mode)}</description>\n  </subagent>" for a in agents)
        listing = f"<available_subagents>\n{entries}\n</available_subagents>"
    else:
        listing = "\n".join(f"- {a.name} -> {a.description_in(plan_mode)}" for a in agents)
    return f"# Available Sub-Agents\n\n{how}\n\n{listing}"
