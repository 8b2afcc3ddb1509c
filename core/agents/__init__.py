"""Subagents, as Gemini CLI 0.61 defines them: their definitions (agent files and the built-ins), the catalog a
session offers, the system instruction's section that lists them, and one subagent run with its own
conversation, tools and limits. Above `session` in the rooms' order: a run uses the session's scheduler.

A lazy face, as every room's: naming a module of this room (the app's call lines read `tool_names`) does not load
the subagent's run and the session's scheduler with it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemini_tui.core.ground.lazy_face import lazy_face

if TYPE_CHECKING:
    from gemini_tui.core.agents.catalog import AgentCatalog, load_catalog
    from gemini_tui.core.agents.definition import AgentDefinition, AgentSource
    from gemini_tui.core.agents.subagent import AgentHost, SubagentOutcome, SubagentRun, TerminateReason

__all__ = ["AgentCatalog", "AgentDefinition", "AgentHost", "AgentSource", "SubagentOutcome", "SubagentRun",
           "TerminateReason", "load_catalog"]

__getattr__ = lazy_face(__name__, {
    "gemini_tui.core.agents.catalog": ("AgentCatalog", "load_catalog"),
    "gemini_tui.core.agents.definition": ("AgentDefinition", "AgentSource"),
    "gemini_tui.core.agents.subagent": ("AgentHost", "SubagentOutcome", "SubagentRun", "TerminateReason"),
})
