"""`gemini-tui --acp`: the ACP agent on stdio. Only JSON-RPC goes to stdout; notices go to stderr or the debug log.

The protocol gets private copies of stdin and stdout; the process's own fd 0 reads /dev/null and fd 1 writes to
stderr, so nothing else (a stray print, a child process inheriting them) can corrupt or steal the stream."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.agent.connection import AgentSideConnection
from acp.schema import AuthMethodAgent

from gemini_tui.cli.acp.agent import GeminiAcpAgent, SessionRequest
from gemini_tui.cli.acp.stdio import flush_copies, private_stdio
from gemini_tui.core.setup.config import McpServerConfig

log = logging.getLogger(__name__)



class StdioTransport:
    """Newline-delimited JSON-RPC on the protocol's streams (acp._transport.Transport). Unlike the SDK's own
    stdio transport, a line that is not JSON, or not a JSON-RPC message, is answered with the JSON-RPC error
    (-32700, -32600) instead of being dropped in silence."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._lock = asyncio.Lock()

    async def send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        async with self._lock:
            self._writer.write(data)
            await self._writer.drain()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            try:
                line = await self._reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:
                line = exc.partial
                if not line.strip():
                    return None
            except asyncio.LimitOverrunError:
                await self._skip_long_line()
                await self._error(None, RequestError(-32600, "Invalid Request", {"details": "message too large"}))
                continue
            except (ConnectionError, OSError):
                return None
            if not line.strip():
                if line == b"":
                    return None
                continue
            try:
                message = json.loads(line)
            except (ValueError, UnicodeDecodeError):
                await self._error(None, RequestError.parse_error({"details": "not valid JSON"}))
                continue
            problem = _not_jsonrpc(message)
            if problem is None:
                return message
            request_id = message.get("id") if isinstance(message, dict) else None
            if not isinstance(request_id, str | int) or isinstance(request_id, bool):
                request_id = None
            await self._error(request_id, RequestError.invalid_request({"details": problem}))

    async def _skip_long_line(self) -> None:
        while True:
            try:
                await self._reader.readuntil(b"\n")
                return
            except asyncio.LimitOverrunError as exc:
                await self._reader.readexactly(exc.consumed)
            except asyncio.IncompleteReadError:
                return

    async def _error(self, request_id: Any, error: RequestError) -> None:
        try:
            await self.send({"jsonrpc": "2.0", "id": request_id, "error": error.to_error_obj()})
        except (ConnectionError, OSError):
            pass

    async def close(self) -> None:
        try:
            self._writer.close()
        except (ConnectionError, OSError, RuntimeError):
            pass


def _not_jsonrpc(message: Any) -> str | None:
    """Why `message` is not a JSON-RPC 2.0 request, notification or response (None when it is one)."""
    if not isinstance(message, dict):
        return "a JSON-RPC message is a JSON object"
    if message.get("jsonrpc") != "2.0":
        return 'jsonrpc must be "2.0"'
    if "id" in message and (isinstance(message["id"], bool)
                            or not isinstance(message["id"], str | int | type(None))):
        return "id must be a string, a number or null"
    if "method" in message:
        if not isinstance(message["method"], str):
            return "method must be a string"
        if "params" in message and not isinstance(message["params"], dict | list | type(None)):
            return "params must be an object or an array"
        return None
    if "id" not in message or ("result" not in message and "error" not in message):
        return "neither a request nor a response"
    return None


# -- the composition: a core session per ACP session ------------------------------------------------------------------
def client_servers(servers: Sequence[Any], root: Path) -> dict[str, McpServerConfig]:
    """The client's `mcpServers` (stdio, http, sse) as settings entries."""
    found: dict[str, McpServerConfig] = {}
    for server in servers:
        name = getattr(server, "name", "")
        if not name:
            continue
        if getattr(server, "command", None):
            found[name] = McpServerConfig(command=server.command, args=list(server.args or []),
                                          env={v.name: v.value for v in server.env or []}, cwd=str(root))
        elif getattr(server, "url", None):
            kind = "sse" if getattr(server, "type", "http") == "sse" else "http"
            found[name] = McpServerConfig(url=server.url, type=kind,
                                          headers={h.name: h.value for h in getattr(server, "headers", None) or []})
    return found


class Composer:
    """Builds core sessions the way the command line asked (`-m`, `--approval-mode`, `--sandbox`, ...)."""

    def __init__(self, model: str | None, approval_mode: str | None, wiring: dict[str, Any]) -> None:
        self.model = model
        self.approval_mode = approval_mode
        self.wiring = wiring

    def build(self, request: SessionRequest) -> Any:
        """The user's and the workspace's settings (folder trust applies to the workspace's), with the client's
        MCP servers added as the user's own: the editor is the user's program. `mcp.allowed`, `mcp.excluded` and
        `--allowed-mcp-server-names` still decide which connect."""
        from gemini_tui.cli.assemble import ConfigurationError, MissingKey, build_session
        from gemini_tui.core.setup.config import load_settings

        settings = load_settings(request.cwd, trust_flag=bool(self.wiring.get("trust")))
        extra = client_servers(request.mcp_servers, request.cwd)
        if extra:
            settings = settings.model_copy(update={"mcp_servers": {**settings.mcp_servers, **extra}})
        wiring = dict(self.wiring)
        wiring["include_directories"] = [*wiring.get("include_directories", []), *request.additional_directories]
        try:
            # no usable key: a client must hear so (and offer its sign-in), not chat with the offline demo model
            session = build_session(request.cwd, model=self.model, approval_mode=self.approval_mode,
                                    interactive=True, prewarm=True, settings=settings, offline_without_key=False,
                                    **wiring)
        except MissingKey as exc:  # the reason in the message too: a runner may record only the message
            raise RequestError(-32000, f"Authentication required: {exc}", {"details": str(exc)}) from exc
        except ConfigurationError as exc:
            raise RequestError.internal_error({"details": f"configuration error: {exc}"}) from exc
        return session

    @staticmethod
    def saved(root: Path) -> list[Any]:
        from gemini_tui.cli.sessions import store_for

        return store_for(root).summaries()


AUTH_METHODS = [AuthMethodAgent(id="gemini-api-key", name="Gemini API key",
                                description="GEMINI_API_KEY (or GOOGLE_API_KEY) in the agent's environment")]


async def serve(agent: GeminiAcpAgent, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Runs the connection until the client closes its end, then ends every session (their children too)."""
    connection = AgentSideConnection(agent, StdioTransport(reader, writer), listening=False)  # type: ignore[arg-type]
    try:
        await connection.listen()
    finally:
        await agent.shutdown()
        await asyncio.shield(connection.close())


def run(model: str | None, approval_mode: str | None, wiring: dict[str, Any]) -> int:
    composer = Composer(model, approval_mode, wiring)
    disabled = ["yolo"] if _yolo_disabled() else []
    agent = GeminiAcpAgent(composer.build, composer.saved, auth_methods=AUTH_METHODS, disabled_modes=disabled)

    async def main() -> None:
        reader, writer = await private_stdio()
        await serve(agent, reader, writer)

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        return 130
    finally:
        flush_copies()
    return 0


def _yolo_disabled() -> bool:
    from gemini_tui.core.setup.config import load_settings

    try:
        return bool(getattr(load_settings(Path.cwd().resolve()), "disable_yolo_mode", False))
    except Exception:
        return False
