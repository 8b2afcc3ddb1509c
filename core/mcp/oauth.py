"""OAuth for remote MCP servers that ask for it (a 401 with OAuth metadata), through the mcp SDK's client
support: discovery, dynamic client registration, PKCE, the browser step with a loopback callback, token refresh.

Tokens and registered clients are kept per server URL in `~/.gemini/gemini-tui-mcp-oauth.json` (owner-only,
written atomically). `mcpServers.<name>.oauth` may set `enabled` (false: never), `clientId`, `clientSecret`,
`scopes` and `redirectUri`, as in Gemini CLI."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import uuid
import webbrowser
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from gemini_tui.core.setup.config import McpServerConfig

STORE_FILE = "gemini-tui-mcp-oauth.json"
CALLBACK_PATH = "/oauth/callback"
CALLBACK_TIMEOUT_S = 300.0


async def open_in_browser(url: str) -> None:
    """The authorization step: the user's browser (tests replace this with a client that follows the URL)."""
    await asyncio.to_thread(webbrowser.open, url)


class FileTokenStorage:
    """The SDK's TokenStorage over one JSON file shared by every server, keyed by the server's URL."""

    def __init__(self, path: Path, server_url: str) -> None:
        self.path = path
        self.key = server_url

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _save(self, field: str, value: dict[str, Any]) -> None:
        data = self._load()
        data.setdefault(self.key, {})[field] = value
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temp = self.path.with_name(f".{self.path.name}.{uuid.uuid4().hex[:8]}.tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # tokens: readable by the owner only
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, self.path)

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        found = self._load().get(self.key, {}).get("tokens")
        return OAuthToken.model_validate(found) if found else None

    async def set_tokens(self, tokens: Any) -> None:
        self._save("tokens", tokens.model_dump(mode="json", exclude_none=True))

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        found = self._load().get(self.key, {}).get("client_info")
        return OAuthClientInformationFull.model_validate(found) if found else None

    async def set_client_info(self, client_info: Any) -> None:
        self._save("client_info", client_info.model_dump(mode="json", exclude_none=True))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LoopbackCallback:
    """Receives the browser's redirect (`http://127.0.0.1:<port>/oauth/callback?code=...&state=...`)."""

    def __init__(self, redirect_uri: str) -> None:
        self.redirect_uri = redirect_uri
        parts = urlsplit(redirect_uri)
        self.port = parts.port or 80
        self.path = parts.path or CALLBACK_PATH
        self._result: asyncio.Future[Any] | None = None
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        from mcp.shared.auth import AuthorizationCodeResult

        try:
            line = (await reader.readline()).decode("latin-1")
            while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                pass
            target = urlsplit(line.split(" ")[1] if " " in line else "/")
            query = {k: v[0] for k, v in parse_qs(target.query).items()}
            ok = target.path == self.path and "code" in query
            body = (b"gemini-tui: authorized, you can close this tab." if ok
                    else b"gemini-tui: authorization failed: " + query.get("error", "no code").encode())
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "
                         + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
            await writer.drain()
            if self._result is not None and not self._result.done() and target.path == self.path:
                if ok:
                    self._result.set_result(AuthorizationCodeResult(code=query["code"], state=query.get("state"),
                                                                    iss=query.get("iss")))
                else:
                    self._result.set_exception(RuntimeError(f"authorization refused: {query.get('error', '?')}"))
        finally:
            writer.close()

    async def wait(self) -> Any:
        assert self._result is not None
        try:
            return await asyncio.wait_for(self._result, CALLBACK_TIMEOUT_S)
        finally:
            if self._server is not None:
                self._server.close()
                with contextlib.suppress(Exception):
                    await self._server.wait_closed()


def oauth_provider(alias: str, config: McpServerConfig, url: str, store: Path,
                   tell: Callable[[str], None] | None = None,
                   browser: Callable[[str], Awaitable[None]] | None = None) -> Any:
    """An httpx2 Auth that answers a server's OAuth challenge, or None when OAuth is off for it (`oauth.enabled`
    false, or an Authorization header is configured)."""
    settings = config.oauth or {}
    if settings.get("enabled") is False or any(k.lower() == "authorization" for k in config.headers):
        return None
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata
    from pydantic import AnyUrl

    redirect_uri = settings.get("redirectUri") or f"http://127.0.0.1:{_free_port()}{CALLBACK_PATH}"
    scopes = settings.get("scopes")
    metadata = OAuthClientMetadata(
        client_name="gemini-tui", redirect_uris=[AnyUrl(redirect_uri)],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"], scope=" ".join(scopes) if isinstance(scopes, list) and scopes else None,
        token_endpoint_auth_method="client_secret_post" if settings.get("clientSecret") else "none")
    storage = FileTokenStorage(store, url)
    if settings.get("clientId"):  # a client registered by hand: no dynamic registration
        from mcp.shared.auth import OAuthClientInformationFull

        info = OAuthClientInformationFull(client_id=settings["clientId"], client_secret=settings.get("clientSecret"),
                                          **metadata.model_dump(exclude_none=True))
        storage._save("client_info", info.model_dump(mode="json", exclude_none=True))
    callback = LoopbackCallback(redirect_uri)

    async def redirect(authorization_url: str) -> None:
        await callback.start()  # listening before the browser can come back
        if tell is not None:
            tell(f'MCP server "{alias}" asks you to sign in: opening {authorization_url} in your browser.')
        await (browser or open_in_browser)(authorization_url)

    return OAuthClientProvider(server_url=url, client_metadata=metadata, storage=storage,
                               redirect_handler=redirect, callback_handler=callback.wait)
