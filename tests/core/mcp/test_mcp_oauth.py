"""OAuth for a remote MCP server that requires it: discovery, registration, the browser step (followed by a
test client instead of a person), the loopback callback, stored tokens reused next time."""

from __future__ import annotations

import stat
from pathlib import Path

import httpx2
import pytest

from gemini_tui.core.ground.events import McpServerState
from gemini_tui.core.mcp import McpManager
from gemini_tui.core.mcp import oauth as oauth_module
from gemini_tui.core.tooling.registry import ToolRegistry
from tests.fakes.mcp_oauth import serve_oauth_mcp


async def test_oauth_server_connects_after_sign_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []

    async def browser(url: str) -> None:  # the user's browser: follows the authorization to the callback
        opened.append(url)
        async with httpx2.AsyncClient(follow_redirects=True) as client:
            response = await client.get(url)
        assert "authorized" in response.text

    monkeypatch.setattr(oauth_module, "open_in_browser", browser)
    store = tmp_path / "oauth.json"
    with serve_oauth_mcp() as (url, provider):
        for attempt in range(2):
            registry = ToolRegistry()
            manager = McpManager({"secure": {"url": url, "type": "http"}}, registry, root=tmp_path,
                                 oauth_store=store)
            try:
                await manager.wait_ready(30)
                connection = manager.connections["secure"]
                assert connection.state is McpServerState.connected, connection.message
                assert "whoami" in registry
                result = await connection.call("whoami", {})
                assert result.content[0].text == "an authorized client"
            finally:
                await manager.close()
            assert provider.authorizations == 1, attempt  # the second run reuses the stored token
        assert len(opened) == 1 and "/authorize" in opened[0]
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    assert url in store.read_text()


async def test_oauth_disabled_or_header_means_no_sign_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def browser(url: str) -> None:
        raise AssertionError("no browser step expected")

    monkeypatch.setattr(oauth_module, "open_in_browser", browser)
    with serve_oauth_mcp() as (url, _):
        manager = McpManager({"secure": {"url": url, "type": "http", "oauth": {"enabled": False}}}, ToolRegistry(),
                             root=tmp_path, oauth_store=tmp_path / "oauth.json", connect_timeout_s=10)
        try:
            await manager.wait_ready(15)
            assert manager.connections["secure"].state is McpServerState.failed
        finally:
            await manager.close()
