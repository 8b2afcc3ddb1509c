"""The names a rule may give an MCP tool or server: shared by the registry, the policy and the MCP servers."""

from __future__ import annotations


def mcp_names(server: str, tool: str) -> set[str]:
    """Every spelling a rule may use for MCP tool `tool` of `server`: `server__tool` (ours), Gemini CLI's
    `mcp_<server>_<tool>`, `mcp:server/tool`, and the bare tool name."""
    return {f"{server}__{tool}", f"mcp_{server}_{tool}", f"mcp:{server}/{tool}", tool}


def mcp_server_names(server: str) -> set[str]:
    """Rules that cover every tool of `server`: `mcp:server`, `mcp_<server>` and `server__*`."""
    return {f"mcp:{server}", f"mcp_{server}", f"{server}__*", f"mcp_{server}_*"}
