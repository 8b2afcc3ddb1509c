"""Agents room: which of the session's tools a subagent gets: those its definition names (wildcards as Gemini CLI
0.61 reads them), never one the session does not have, never another `invoke_agent`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gemini_tui.core.agents.tool_names import COMPLETE_TASK, INVOKE_AGENT
from gemini_tui.core.tooling.registry import ToolRegistry
from gemini_tui.core.tooling.tool import BaseTool

# the argument Gemini CLI 0.61 declares on every tool (it orders a turn's calls), in its words
WAIT_FOR_PREVIOUS = ("Set to true to wait for all previously requested tools in this turn to complete before "
                     "starting. Set to false (or omit) to run in parallel. Use true when this tool depends on the "
                     "output of previous tools.")
# never a subagent's: it cannot start another, nor ask the user, nor switch the session's mode
NEVER = frozenset({INVOKE_AGENT, COMPLETE_TASK, "ask_user", "enter_plan_mode", "exit_plan_mode"})
# Gemini CLI 0.61's names of tools this project names otherwise
GEMINI_CLI_NAMES = {"grep_search": "search_file_content", "grep": "search_file_content"}


def _server(tool: BaseTool[Any]) -> str | None:
    return getattr(tool, "server_name", None)


def _matches(wanted: str, tool: BaseTool[Any], registry: ToolRegistry) -> bool:
    if wanted == "*":
        return True
    server = _server(tool)
    if wanted == "mcp_*":
        return server is not None
    if wanted.startswith("mcp_") and wanted.endswith("_*"):
        return server == wanted[len("mcp_"):-2]
    names = {tool.name, *registry.aliases(tool)}
    return GEMINI_CLI_NAMES.get(wanted, wanted) in names


def choose_tools(wanted: Sequence[str] | None, registry: ToolRegistry) -> list[BaseTool[Any]]:
    """The session's tools named by `wanted` (all of them when None), in the session's order."""
    chosen = []
    for tool in registry.tools:
        if tool.name in NEVER:
            continue
        if wanted is None or any(_matches(name, tool, registry) for name in wanted):
            chosen.append(tool)
    return chosen


def unknown_names(wanted: Sequence[str] | None, registry: ToolRegistry) -> list[str]:
    """Names in `wanted` that match none of the session's tools (said in `/agents show`)."""
    if wanted is None:
        return []
    return [name for name in wanted if not any(_matches(name, tool, registry) for tool in registry.tools)]
