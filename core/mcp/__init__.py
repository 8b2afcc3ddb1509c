"""MCP servers from `mcpServers`: connections, their tools (`DiscoveredMCPTool`) and per-server status.

Importing this package does not import the `mcp` SDK; connections import it when they start."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemini_tui.core.ground.lazy_face import lazy_face

if TYPE_CHECKING:
    from gemini_tui.core.mcp.servers import McpManager, McpServerStatus
    from gemini_tui.core.mcp.tool import DiscoveredMCPTool

__all__ = ["DiscoveredMCPTool", "McpManager", "McpServerStatus"]

__getattr__ = lazy_face(__name__, {
    "gemini_tui.core.mcp.tool": ("DiscoveredMCPTool",),
    "gemini_tui.core.mcp.servers": ("McpManager", "McpServerStatus"),
})
