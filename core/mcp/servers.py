"""McpManager: every server of `mcpServers` connected in the background, its tools registered, its status kept."""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gemini_tui.core.ground.events import EventBus, McpServerState, McpServerStatusChanged
from gemini_tui.core.mcp.connection import DEFAULT_CONNECT_TIMEOUT_S, McpConnection, era_of
from gemini_tui.core.mcp.naming import mcp_tool_name
from gemini_tui.core.mcp.tool import DiscoveredMCPTool
from gemini_tui.core.setup.config import McpServerConfig
from gemini_tui.core.tooling.registry import ToolRegistry, tool_rule_name
from gemini_tui.core.tooling.rule_names import mcp_names
from gemini_tui.core.tooling.schema import SchemaError, clean_schema


@dataclass(frozen=True)
class McpServerStatus:
    """What `/mcp` and the status line show for one server."""

    server: str
    state: McpServerState
    transport: str
    tool_count: int = 0
    message: str = ""  # why it failed; or which tools were skipped
    tool_names: tuple[str, ...] = ()  # as registered (what the model calls)
    skipped_tools: tuple[str, ...] = ()  # "name: reason"
    trust: bool = False
    log_path: str | None = None  # the server's stderr (stdio servers)
    protocol: str = ""  # "2026-07-28 (modern)", "2025-11-25 (handshake)"; empty until connected


def _selected(server: str, name: str, include: list[str] | None, exclude: list[str]) -> bool:
    """`includeTools` / `excludeTools` (exclude wins); entries may carry arguments: `tool(args)`, and may spell
    the tool `tool`, `server__tool` or Gemini CLI's `mcp_<server>_<tool>`."""
    spellings = mcp_names(server, name)
    if any(tool_rule_name(rule) in spellings for rule in exclude):
        return False
    return include is None or any(tool_rule_name(rule) in spellings for rule in include)


class McpManager:
    """Owns one `McpConnection` per configured server.

    `start()` returns at once (the app never waits); `wait_ready(timeout)` is for headless runs, which want the
    tools before the first model request. Each change is published as `McpServerStatusChanged` on `bus`."""

    def __init__(self, servers: Mapping[str, McpServerConfig | Mapping[str, Any]], registry: ToolRegistry,
                 bus: EventBus | None = None, *, root: Path | None = None, log_dir: Path | None = None,
                 connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
                 roots: Callable[[], list[Path]] | None = None, oauth_store: Path | None = None) -> None:
        self.registry = registry
        # the session's commands: servers' prompts join them as `/server:prompt` (set by the wiring)
        self.commands: dict[str, Any] | None = None
        self._prompt_names: dict[str, list[str]] = {}
        self.bus = bus
        self.root = Path(root or Path.cwd())
        # per user: a shared temp directory must not let one user's server logs block (or be read by) another's
        user = getattr(os, "getuid", lambda: "user")()
        self.log_dir = log_dir or Path(tempfile.gettempdir()) / f"gemini-tui-{user}" / "mcp-logs"
        configs = {alias: c if isinstance(c, McpServerConfig) else McpServerConfig.model_validate(c)
                   for alias, c in servers.items()}
        self._prefixed = len(configs) > 1
        self.connections: dict[str, McpConnection] = {
            alias: McpConnection(alias, config, root=self.root, log_dir=self.log_dir,
                                 connect_timeout_s=connect_timeout_s, on_change=self._changed, roots=roots,
                                 auth=self._oauth(alias, config, oauth_store))
            for alias, config in configs.items()
        }
        self._registered: dict[str, list[str]] = {alias: [] for alias in configs}
        self._skipped: dict[str, list[str]] = {alias: [] for alias in configs}
        self._started = False

    def _oauth(self, alias: str, config: McpServerConfig, store: Path | None) -> Callable[[str], Any] | None:
        """OAuth for a remote server, built when it connects (the SDK's auth module loads only then)."""
        if store is None:
            return None

        def build(url: str) -> Any:
            from gemini_tui.core.ground.events import Notice
            from gemini_tui.core.mcp.oauth import oauth_provider

            def tell(text: str) -> None:
                if self.bus is not None:
                    self.bus.publish(Notice(text, "info"))

            return oauth_provider(alias, config, url, store, tell)

        return build

    # ----- lifecycle ---------------------------------------------------------------------------------------
    def start(self) -> None:
        """Starts connecting every server in the background (needs a running event loop)."""
        if self._started:
            return
        self._started = True
        for connection in self.connections.values():
            self._publish(connection)  # connecting
            connection.start()

    async def wait_ready(self, timeout_s: float | None = None) -> bool:
        """Waits until every server is connected or failed; False when `timeout_s` ran out first."""
        self.start()
        waits = [c.wait_ready() for c in self.connections.values()]
        if not waits:
            return True
        try:
            async with asyncio.timeout(timeout_s):
                await asyncio.gather(*waits)
            return True
        except TimeoutError:
            return False

    async def close(self) -> None:
        await asyncio.gather(*(c.close() for c in self.connections.values()), return_exceptions=True)

    # ----- status ------------------------------------------------------------------------------------------
    def status(self, alias: str) -> McpServerStatus:
        connection = self.connections[alias]
        skipped = tuple(self._skipped[alias])
        message = connection.message
        if connection.state is McpServerState.connected and skipped:
            message = "skipped " + "; ".join(skipped)
        return McpServerStatus(
            server=alias, state=connection.state, transport=connection.transport,
            tool_count=len(self._registered[alias]), message=message, tool_names=tuple(self._registered[alias]),
            skipped_tools=skipped, trust=connection.config.trust,
            log_path=str(connection.log_path) if connection.transport == "stdio" else None,
            protocol=era_of(connection.protocol),
        )

    def connecting(self) -> list[str]:
        """The servers still connecting."""
        return [alias for alias, c in self.connections.items() if c.state is McpServerState.connecting]

    def statuses(self) -> list[McpServerStatus]:
        return [self.status(alias) for alias in self.connections]

    def _publish(self, connection: McpConnection) -> None:
        if self.bus is None:
            return
        status = self.status(connection.alias)
        self.bus.publish(McpServerStatusChanged(status.server, status.state, status.tool_count, status.message,
                                                status.protocol))

    # ----- tools -------------------------------------------------------------------------------------------
    def _changed(self, connection: McpConnection) -> None:
        for name in self._registered[connection.alias]:  # a re-list (list_changed) replaces them all
            self.registry.unregister(name)
        self._registered[connection.alias] = []
        if connection.state is McpServerState.connected:
            self._register_tools(connection)
        self._offer_prompts(connection)
        self._publish(connection)

    def _offer_prompts(self, connection: McpConnection) -> None:
        from gemini_tui.core.mcp.prompts import prompt_command

        if self.commands is None:
            return
        for name in self._prompt_names.pop(connection.alias, []):
            self.commands.pop(name, None)
        if connection.state is not McpServerState.connected:
            return
        names: list[str] = []
        for prompt in connection.prompts:
            command = prompt_command(connection, prompt)
            if command.name not in self.commands:  # a custom command of the same name wins
                self.commands[command.name] = command
                names.append(command.name)
        self._prompt_names[connection.alias] = names

    # ----- resources and roots -----------------------------------------------------------------------------
    def resource_owner(self, mention: str) -> tuple[McpConnection, str] | None:
        """`server:uri` -> the server's connection and the URI, when `server` is a connected server."""
        alias, colon, uri = mention.partition(":")
        connection = self.connections.get(alias)
        if not colon or not uri or connection is None or connection.state is not McpServerState.connected:
            return None
        return connection, uri

    def resource_mentions(self) -> dict[str, str]:
        """`server:uri` -> the resource's name, for completion after `@`."""
        return {f"{c.alias}:{r.uri}": (r.name or r.title or "") for c in self.connections.values()
                if c.state is McpServerState.connected for r in c.resources}

    async def roots_changed(self) -> None:
        await asyncio.gather(*(c.roots_changed() for c in self.connections.values()), return_exceptions=True)

    def _register_tools(self, connection: McpConnection) -> None:
        config = connection.config
        registered, skipped = self._registered[connection.alias], self._skipped[connection.alias]
        registered.clear()
        skipped.clear()
        for server_tool in connection.tools:
            name = server_tool.name
            if not _selected(connection.alias, name, config.include_tools, config.exclude_tools):
                continue
            try:
                schema = clean_schema(dict(server_tool.input_schema or {"type": "object"}))
            except SchemaError as exc:
                skipped.append(f"{name}: its input schema cannot be used ({exc})")
                continue
            schema.setdefault("type", "object")
            function_name = mcp_tool_name(connection.alias, name, prefixed=self._prefixed)
            if function_name in self.registry:  # a built-in (or another server) has the name: say whose it is
                function_name = mcp_tool_name(connection.alias, name, prefixed=True)
            description = server_tool.description or server_tool.title or f"{name} from MCP server {connection.alias}"
            tool = DiscoveredMCPTool(connection, name, function_name, description, schema, trust=config.trust)
            if self.registry.register(tool):
                registered.append(function_name)
            else:
                why = self.registry.skipped.get(function_name, "not registered")
                skipped.append(f"{name}: {why}")


@contextlib.asynccontextmanager
async def connected(manager: McpManager, timeout_s: float | None = None) -> AsyncIterator[McpManager]:
    """`async with connected(manager):` starts, waits (bounded) and closes: for headless runs and tests."""
    await manager.wait_ready(timeout_s)
    try:
        yield manager
    finally:
        await manager.close()
