"""An MCP server that requires OAuth (the mcp SDK's own authorization server routes), served on 127.0.0.1 by
uvicorn in a thread. Its provider keeps clients, codes and tokens in memory and approves every authorization
request at once, as a user clicking "Allow" would."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from tests.fakes.mcp_http import free_port, serve_app


@dataclass
class MemoryProvider:
    clients: dict[str, OAuthClientInformationFull] = field(default_factory=dict)
    codes: dict[str, AuthorizationCode] = field(default_factory=dict)
    tokens: dict[str, AccessToken] = field(default_factory=dict)
    refresh: dict[str, RefreshToken] = field(default_factory=dict)
    authorizations: int = 0

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[str(client_info.client_id)] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        self.authorizations += 1
        code = secrets.token_hex(8)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or [], expires_at=time.time() + 300, client_id=str(client.client_id),
            code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource)
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        return self.codes.get(code)

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          code: AuthorizationCode) -> OAuthToken:
        self.codes.pop(code.code, None)
        token, refresh = secrets.token_hex(16), secrets.token_hex(16)
        self.tokens[token] = AccessToken(token=token, client_id=str(client.client_id), scopes=code.scopes,
                                         expires_at=int(time.time()) + 3600, resource=code.resource)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=str(client.client_id), scopes=code.scopes)
        return OAuthToken(access_token=token, token_type="Bearer", expires_in=3600, refresh_token=refresh)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: RefreshToken,
                                     scopes: list[str]) -> OAuthToken:
        raise NotImplementedError

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.tokens.get(token)

    async def revoke_token(self, token: Any) -> None:
        self.tokens.pop(getattr(token, "token", ""), None)


@contextmanager
def serve_oauth_mcp() -> Iterator[tuple[str, MemoryProvider]]:
    """Yields the server's MCP URL (streamable HTTP) and its provider (to count authorizations)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    provider = MemoryProvider()
    server = MCPServer("protected", auth_server_provider=provider, auth=AuthSettings(
        issuer_url=base, resource_server_url=f"{base}/mcp",
        client_registration_options=ClientRegistrationOptions(enabled=True), validate_token_resource=True))

    @server.tool(description="Says who may call it.")
    def whoami() -> str:
        return "an authorized client"

    with serve_app(server.streamable_http_app(), port):
        yield f"{base}/mcp", provider
