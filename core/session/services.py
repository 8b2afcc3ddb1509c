"""The session's background services: MCP servers connecting and command discovery, whose tools join late."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from gemini_tui.core.ground.events import Notice
from gemini_tui.core.session.face import McpServers, ToolDiscovery
from gemini_tui.core.tooling.registry import ToolRegistry

log = logging.getLogger(__name__)


class BackgroundServices:
    """Started once (by the front end early, or by the first prompt), closed once when the front end exits."""

    def __init__(self, registry: ToolRegistry, mcp: McpServers | None, discovery: ToolDiscovery | None,
                 notice: Callable[[Notice], None]) -> None:
        self.registry = registry
        self.mcp = mcp
        self.discovery = discovery
        self.notice = notice
        self._discovered: asyncio.Task[None] | None = None
        self._started = False

    async def start(self, wait_s: float | None = 0.0) -> None:
        """Starts connecting MCP servers and registers discovered tools when discovery ends; waits up to `wait_s`
        for both (0: not at all; None: without a bound)."""
        if not self._started:
            self._started = True
            if self.mcp is not None:
                self.mcp.start()
            if self.discovery is not None:
                self._discovered = asyncio.ensure_future(self._register_discovered())
        if wait_s is not None and wait_s <= 0:
            return
        waits: list[Awaitable[object]] = []
        if self.mcp is not None:
            waits.append(self.mcp.wait_ready(wait_s))
        if self._discovered is not None and not self._discovered.done():
            waits.append(asyncio.wait({self._discovered}, timeout=wait_s))
        await asyncio.gather(*waits)

    def mcp_offers(self, server: str) -> tuple[list[str], list[str]]:
        """What a connected MCP server offers beside tools: its prompts' names and its resources' URIs."""
        connection = (getattr(self.mcp, "connections", None) or {}).get(server)
        if connection is None:
            return [], []
        return ([p.name for p in getattr(connection, "prompts", None) or []],
                [r.uri for r in getattr(connection, "resources", None) or []])

    def resource_mentions(self) -> dict[str, str]:
        """MCP resources a prompt may mention: `server:uri` -> name (for completion after `@`)."""
        return self.mcp.resource_mentions() if self.mcp is not None else {}

    def connecting(self) -> list[str]:
        """The MCP servers still connecting."""
        return self.mcp.connecting() if self.mcp is not None else []

    async def _register_discovered(self) -> None:
        assert self.discovery is not None
        try:
            found = await self.discovery.result()
        except Exception as exc:
            log.exception("tool discovery failed")
            problems = [f"Tool discovery failed: {type(exc).__name__}: {exc}"]
        else:
            problems = list(found.errors)
            for tool in found.tools:
                if not self.registry.register(tool) and tool.name in self.registry:
                    problems.append(f"Discovered tool {tool.name} skipped: a tool with this name is already "
                                    "registered.")
        for text in problems:
            self.notice(Notice(text, "warning"))

    async def close(self) -> None:
        """Disconnects MCP servers and ends a discovery command still running."""
        if self.discovery is not None:
            self.discovery.stop()
        if self._discovered is not None:
            self._discovered.cancel()
        if self.mcp is not None:
            await self.mcp.close()
