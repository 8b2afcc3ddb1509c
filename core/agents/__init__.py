"""Subagents, as Gemini CLI 0.61 defines them: their definitions (agent files and the built-ins), the catalog a
session offers, the system instruction's section that lists them, and one subagent run with its own
conversation, tools and limits. Above `session` in the rooms' order: a run uses the session's scheduler."""

from gemini_tui.core.agents.catalog import AgentCatalog, load_catalog
from gemini_tui.core.agents.definition import AgentDefinition, AgentSource
from gemini_tui.core.agents.subagent import AgentHost, SubagentOutcome, SubagentRun, TerminateReason

__all__ = ["AgentCatalog", "AgentDefinition", "AgentHost", "AgentSource", "SubagentOutcome", "SubagentRun",
           "TerminateReason", "load_catalog"]
