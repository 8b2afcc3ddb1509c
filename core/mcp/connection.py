"""One MCP server connection (stdio, SSE or streamable HTTP), held open by its own task; calls from anywhere."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from gemini_tui.core.ground.events import McpServerState
from gemini_tui.core.processes.child_env import helper_environment
from gemini_tui.core.setup.config import McpServerConfig

log = logging.getLogger(__name__)

DEFAULT_CONNECT_TIMEOUT_S = 30.0
DEFAULT_CALL_TIMEOUT_S = 600.0  # Gemini CLI's default MCP timeout: 10 minutes
IDLE_CHECK_S = 0.5
RELIST_WAIT_S = 5.0  # a call waits this long at most for the re-listing its own announcement started


def transport_of(config: McpServerConfig) -> str:
    """"stdio", "sse" or "http": `type` when given, else httpUrl (streamable HTTP), url (SSE), command."""
    if config.type in ("http", "sse"):
        return config.type
    if config.type == "stdio" or (config.command and not (config.url or config.http_url)):
        return "stdio"
    return "http" if config.http_url else "sse" if config.url else "stdio"


HANDSHAKE = "handshake"  # the `initialize` era (protocol versions up to 2025-11-25)


def era_of(version: str) -> str:
    """How /mcp names a negotiated protocol version: "2026-07-28 (modern)" or "2025-06-18 (handshake)"."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    if not version:
        return ""
    return f"{version} ({'modern' if version in MODERN_PROTOCOL_VERSIONS else HANDSHAKE})"


class McpUnavailable(Exception):
    """The server is not connected (it failed, crashed or was closed): the call never reached it."""


def describe_error(exc: BaseException) -> str:
    """The innermost useful message (anyio wraps transport failures in exception groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError):
        return "timed out"
    text = str(exc).strip()
    if exc.__class__.__name__ == "MCPError":
        text = getattr(exc, "message", text)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class McpConnection:
    """Connects in `start()` (in the background), lists the tools, then stays open until `close()`.

    `on_change` is called after every state change. A server that goes away is noticed by the next call,
    which fails with `McpUnavailable` and moves the connection to `failed`."""

    def __init__(self, alias: str, config: McpServerConfig, *, root: Path, log_dir: Path,
                 connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
                 on_change: Callable[[McpConnection], None] | None = None,
                 roots: Callable[[], list[Path]] | None = None,
                 auth: Callable[[str], Any] | None = None) -> None:
        self.alias = alias
        self.config = config
        self.root = root
        self.log_dir = log_dir
        # a server's `timeout` bounds its connection too (as in Gemini CLI), never beyond the manager's limit
        self.connect_timeout_s = min(connect_timeout_s, config.timeout / 1000) if config.timeout else connect_timeout_s
        self.on_change = on_change
        self.state = McpServerState.connecting
        self.message = ""
        self.tools: list[Any] = []  # mcp_types.Tool
        self.prompts: list[Any] = []  # mcp_types.Prompt
        self.resources: list[Any] = []  # mcp_types.Resource
        self.roots = roots  # the workspace directories, offered to the server as roots
        self.auth = auth  # url -> an httpx2 Auth (OAuth) for remote servers that ask for it, or None
        self._relisting: set[asyncio.Task[None]] = set()
        self._client: Any = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._errlog: TextIO | None = None
        self.protocol = ""  # the negotiated protocol version, once connected
        self.listening = False  # a modern connection listens on the subscriptions bus for list changes

    @property
    def transport(self) -> str:
        return transport_of(self.config)

    @property
    def call_timeout_s(self) -> float:
        return self.config.timeout / 1000 if self.config.timeout else DEFAULT_CALL_TIMEOUT_S

    @property
    def log_path(self) -> Path:
        return self.log_dir / f"{self.alias}.stderr.log"

    def _set(self, state: McpServerState, message: str = "") -> None:
        self.state = state
        self.message = message
        if self.on_change is not None:
            self.on_change(self)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"mcp-server:{self.alias}")

    async def wait_ready(self) -> None:
        """Until connected or failed."""
        await self._ready.wait()

    # ----- the connection's own task ------------------------------------------------------------------------
    def _transport(self) -> Any:
        """The SDK transport for the configured server (the `mcp` package is imported here, lazily)."""
        config = self.config
        timeout = min(self.call_timeout_s, DEFAULT_CALL_TIMEOUT_S)
        transport = self.transport
        if transport == "http":
            url = config.http_url or config.url or ""
            auth = self.auth(url) if self.auth is not None else None
            import httpx2
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            http = create_mcp_http_client(headers=config.headers or None, auth=auth,
                                          timeout=httpx2.Timeout(self.connect_timeout_s, read=timeout))
            return streamable_http_client(url, http_client=http)
        if transport == "sse":
            from mcp.client.sse import sse_client

            url = config.url or config.http_url or ""
            return sse_client(url, headers=config.headers or None, timeout=self.connect_timeout_s,
                              sse_read_timeout=timeout, auth=self.auth(url) if self.auth is not None else None)
        if not config.command:
            raise ValueError("no command, url or httpUrl configured")
        from mcp.client.stdio import StdioServerParameters, stdio_client

        cwd = Path(config.cwd) if config.cwd else self.root
        if not cwd.is_absolute():
            cwd = self.root / cwd
        self.log_dir.mkdir(parents=True, exist_ok=True)
        # the server's stderr goes to a log file, never to the terminal the app draws on
        self._errlog = open(self.log_path, "a", encoding="utf-8")  # noqa: SIM115 - closed when the task ends
        params = StdioServerParameters(command=config.command, args=list(config.args), cwd=str(cwd),
                                       env=helper_environment(config.env))
        return stdio_client(params, errlog=self._errlog)

    async def _list(self, client: Any, kind: str) -> list[Any]:
        """Every page of `tools`, `prompts` or `resources` (fresh: a re-list after list_changed skips caches)."""
        capabilities = getattr(client, "server_capabilities", None)
        if kind != "tools" and capabilities is not None and getattr(capabilities, kind, None) is None:
            return []  # the server offers none
        items: list[Any] = []
        cursor: str | None = None
        for _ in range(100):  # a server whose pages never end cannot hang startup
            page = await getattr(client, f"list_{kind}")(cursor=cursor, cache_mode="refresh")
            items.extend(getattr(page, kind))
            cursor = page.next_cursor
            if not cursor:
                break
        return items

    async def _list_tools(self, client: Any) -> list[Any]:
        return await self._list(client, "tools")

    async def _on_message(self, message: Any) -> None:
        """Server notifications: a changed list of tools, prompts or resources is fetched again."""
        import mcp_types

        kind = {mcp_types.ToolListChangedNotification: "tools",
                mcp_types.PromptListChangedNotification: "prompts",
                mcp_types.ResourceListChangedNotification: "resources"}.get(type(message))
        if kind is not None and self._client is not None:
            self._start_relist(kind)

    def _start_relist(self, kind: str) -> None:
        task = asyncio.ensure_future(self._relist(kind))
        self._relisting.add(task)
        task.add_done_callback(self._relisting.discard)

    async def _relist(self, kind: str) -> None:
        client = self._client
        if client is None:
            return
        try:
            setattr(self, kind, await self._list(client, kind))
        except Exception as exc:  # the old list stays; the next call shows whether the server is still there
            log.info("MCP server %s: re-listing %s failed: %s", self.alias, kind, describe_error(exc))
            return
        if self.state is McpServerState.connected:
            self._set(McpServerState.connected)  # the manager registers what changed

    async def _list_roots(self, context: Any) -> Any:
        import mcp_types
        from pydantic import FileUrl

        directories = self.roots() if self.roots is not None else [self.root]
        return mcp_types.ListRootsResult(roots=[mcp_types.Root(uri=FileUrl(d.resolve().as_uri()), name=d.name)
                                                for d in directories])

    async def roots_changed(self) -> None:
        """Tells the server the workspace directories changed (`/directory add`)."""
        if self._client is not None:
            import warnings

            with contextlib.suppress(Exception), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # deprecated in the 2026 protocol; the handshake-era servers use it
                await self._client.send_roots_list_changed()

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        if self._client is None or self.state is not McpServerState.connected:
            raise McpUnavailable(f'MCP server "{self.alias}" is not connected.')
        return await self._client.get_prompt(name, arguments)

    async def read_resource(self, uri: str) -> Any:
        if self._client is None or self.state is not McpServerState.connected:
            raise McpUnavailable(f'MCP server "{self.alias}" is not connected.')
        return await self._client.read_resource(uri)

    def _missed_deadline(self) -> None:
        """Said when the connect time is up, not when the server has been ended (that takes seconds more: stdin
        closed, a grace period, then a signal), so nobody waits longer than `timeout` for the verdict."""
        if self.state is McpServerState.connecting:
            self._fail(f"did not connect within {self.connect_timeout_s:g} s")
            self._ready.set()

    async def _run(self) -> None:
        """The SDK's discovery first: a server that answers `server/discover` (every current-SDK server, also
        those that accept the handshake) gets the modern protocol, where list changes come on the subscriptions
        bus; any other answer (a handshake-only server's "method not found") falls back to the handshake on
        the same connection at once, where the server may ask for roots and list changes come as plain
        notifications."""
        deadline = asyncio.get_running_loop().call_later(self.connect_timeout_s, self._missed_deadline)
        try:
            async with asyncio.timeout(self.connect_timeout_s) as window:
                await self._session("auto", window, deadline)
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            self._fail(f"did not connect within {self.connect_timeout_s:g} s")
        except BaseException as exc:  # anything the transport throws: the server failed, the app goes on
            log.info("MCP server %s failed", self.alias, exc_info=True)
            reason = describe_error(exc)
            if reason.endswith("Connection closed"):
                reason = "the server closed the connection while starting"
                if self.transport == "stdio":
                    reason += f" (its stderr is in {self.log_path})"
            self._fail(reason)
        else:
            if self.state is McpServerState.connected:
                self._set(McpServerState.disconnected)
        finally:
            deadline.cancel()
            self._client = None
            self._ready.set()
            self._close_errlog()

    def _close_errlog(self) -> None:
        if self._errlog is not None:
            self._errlog.close()
            self._errlog = None

    async def _session(self, mode: str, window: Any, deadline: asyncio.TimerHandle) -> None:
        """One connection in `mode` (the SDK's "auto": discovery, else the handshake), held until close()."""
        from mcp import Client
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        async with contextlib.AsyncExitStack() as stack:
            client = await stack.enter_async_context(
                Client(self._transport(), read_timeout_seconds=self.call_timeout_s,
                       message_handler=self._on_message, list_roots_callback=self._list_roots, mode=mode))
            self.protocol = str(client.protocol_version or "")
            self.tools = await self._list_tools(client)
            self.prompts = await self._list(client, "prompts")
            self.resources = await self._list(client, "resources")
            if self.state is McpServerState.failed:  # the deadline passed just now
                raise TimeoutError
            window.reschedule(None)
            deadline.cancel()
            _lenient_tool_results(client)
            self._client = client
            if self.protocol in MODERN_PROTOCOL_VERSIONS:
                listener = asyncio.create_task(self._listen(client), name=f"mcp-listen:{self.alias}")
                stack.push_async_callback(_cancel, listener)
            self._set(McpServerState.connected)
            self._ready.set()
            await self._hold(client)

    async def _listen(self, client: Any) -> None:
        """On a modern connection: tools, prompts and resources list changes come on the subscriptions bus."""
        from mcp.client.subscriptions import PromptsListChanged, ResourcesListChanged, ToolsListChanged

        kinds = {ToolsListChanged: "tools", PromptsListChanged: "prompts", ResourcesListChanged: "resources"}
        try:
            async with client.listen(tools_list_changed=True, prompts_list_changed=True,
                                     resources_list_changed=True) as subscription:
                self.listening = True
                async for event in subscription:
                    kind = kinds.get(type(event))
                    if kind is not None:
                        self._start_relist(kind)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a server without the bus: its lists are what they were at connection
            log.info("MCP server %s: no subscriptions bus (%s)", self.alias, describe_error(exc))
        finally:
            self.listening = False

    async def _hold(self, client: Any) -> None:
        """Keeps the connection until `close()`; a server that goes away while idle is reported within a
        second or so (the SDK's dispatcher marks itself closed; without that, the next call notices)."""
        while not self._stop.is_set():
            try:
                await asyncio.wait_for(self._stop.wait(), timeout=IDLE_CHECK_S)
            except TimeoutError:
                dispatcher = getattr(getattr(client, "session", None), "_dispatcher", None)
                if getattr(dispatcher, "_closed", False):
                    self._fail("the server closed the connection (it may have crashed)")
                    return

    def _fail(self, reason: str) -> None:
        if self.state is not McpServerState.failed:
            self._set(McpServerState.failed, reason)

    # ----- calls -------------------------------------------------------------------------------------------
    async def call(self, tool: str, arguments: dict[str, Any],
                   on_progress: Callable[[float, float | None, str | None], Any] | None = None) -> Any:
        """The server's `CallToolResult`. Raises McpUnavailable when the server is gone (also mid-call)."""
        client = self._client
        if client is None or self.state is not McpServerState.connected:
            raise McpUnavailable(f'MCP server "{self.alias}" is not connected'
                                 + (f": {self.message}" if self.message else "."))
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED

        try:
            result = await client.call_tool(tool, arguments, read_timeout_seconds=self.call_timeout_s,
                                            progress_callback=on_progress)
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                reason = "the server closed the connection (it may have crashed)"
                self._fail(reason)
                self._stop.set()
                raise McpUnavailable(f'MCP server "{self.alias}" failed during the call: {reason}.') from exc
            raise
        if self._relisting:  # a list change the call announced is registered before the model is asked again
            await asyncio.wait(set(self._relisting), timeout=RELIST_WAIT_S)
        return result

    async def close(self) -> None:
        self._stop.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._task), timeout=10)
            except (TimeoutError, Exception):
                self._task.cancel()
                await asyncio.gather(self._task, return_exceptions=True)


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


def _lenient_tool_results(client: Any) -> None:
    """Drops content blocks of unknown types from `tools/call` results before the SDK validates them (the SDK
    offers no hook: its session's raw request is wrapped). Without the wrapper, one odd block fails the call."""
    from gemini_tui.core.mcp.results import drop_unknown_blocks

    dispatcher = getattr(getattr(client, "session", None), "_dispatcher", None)
    send = getattr(dispatcher, "send_raw_request", None)
    if send is None:
        log.info("MCP client has no raw request to wrap; unknown content blocks will fail their call")
        return

    async def send_lenient(method: str, params: Any, opts: Any = None) -> Any:
        raw = await send(method, params, opts)
        return drop_unknown_blocks(raw) if method == "tools/call" else raw

    setattr(dispatcher, "send_raw_request", send_lenient)  # noqa: B010 (a private attribute of the SDK's)
