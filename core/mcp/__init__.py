"""MCP servers from `mcpServers`: connections, their tools (`DiscoveredMCPTool`) and per-server status.

Importing this package does not import the `mcp` SDK; connections import it when they start."""

from gemini_tui.core.mcp.servers import McpManager, McpServerStatus
from gemini_tui.core.mcp.tool import DiscoveredMCPTool

__all__ = ["DiscoveredMCPTool", "McpManager", "McpServerStatus"]
