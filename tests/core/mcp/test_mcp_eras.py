"""MCP servers of both protocol eras, real SDK servers: a dual-era 2.x server and a hand-written 1.x-style one
connect with the handshake (roots and plain list_changed keep working there); a server that refuses the
handshake is started again on a fresh transport in the modern protocol (stdio and streamable HTTP); a tool a
server announces only on the subscriptions bus is offered; /mcp's status names the protocol."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.events import McpServerState
from gemini_tui.core.mcp import McpManager
from gemini_tui.core.tooling.registry import ToolRegistry
from tests.fakes.mcp_http import serve_app

FAKES = Path(__file__).resolve().parents[2] / "fakes"
ERAS = str(FAKES / "mcp_eras.py")
RAW = str(FAKES / "mcp_raw_server.py")


async def connect(servers: dict[str, Any], tmp_path: Path) -> McpManager:
    manager = McpManager(servers, ToolRegistry(), None, root=tmp_path, log_dir=tmp_path / "logs")
    assert await manager.wait_ready(60)
    return manager


async def run(manager: McpManager, name: str) -> str:
    tool = manager.registry.get(name)
    assert tool is not None, sorted(t.name for t in manager.registry.tools)
    params = tool.validate_params({})
    result = await tool.execute(params, AbortSignal())
    assert result.ok, result.llm_content
    return str(result.llm_content)


async def until_registered(manager: McpManager, name: str, timeout: float = 20) -> None:
    async with asyncio.timeout(timeout):
        while manager.registry.get(name) is None:
            await asyncio.sleep(0.05)


@pytest.mark.parametrize("kind, era", [("dual", "handshake"), ("modern", "modern"), ("bus", "modern")])
async def test_stdio_servers_of_each_era_connect_run_and_announce_tools(kind: str, era: str,
                                                                       tmp_path: Path) -> None:
    manager = await connect({"s": {"command": sys.executable, "args": [ERAS, kind]}}, tmp_path)
    try:
        status = manager.status("s")
        assert status.state is McpServerState.connected, status.message
        assert status.protocol.endswith(f"({era})"), status.protocol
        assert await run(manager, "era") == f"{kind} server answering"
        assert manager.registry.get("late") is None
        assert await run(manager, "grow") == "grew"
        await until_registered(manager, "late")  # plain list_changed (handshake) or the bus (modern)
        assert await run(manager, "late") == "late tool ran"
    finally:
        await manager.close()


async def test_a_refusing_server_is_started_again_in_a_new_process(tmp_path: Path) -> None:
    marker = tmp_path / "starts.log"
    wrapper = tmp_path / "wrap.sh"
    wrapper.write_text(f"#!/bin/sh\necho start >> {marker}\nexec {sys.executable} {ERAS} modern\n")
    wrapper.chmod(0o755)
    manager = await connect({"s": {"command": str(wrapper)}}, tmp_path)
    try:
        assert manager.status("s").state is McpServerState.connected
        assert marker.read_text().count("start") == 2  # the handshake's process, then the modern one
    finally:
        await manager.close()


async def test_a_1x_style_server_keeps_the_handshake(tmp_path: Path) -> None:
    manager = await connect({"raw": {"command": sys.executable, "args": [RAW]}}, tmp_path)
    try:
        status = manager.status("raw")
        assert status.state is McpServerState.connected and status.protocol.endswith("(handshake)")
        assert "kept text" in await run(manager, "odd")
    finally:
        await manager.close()


@pytest.mark.parametrize("kind, era", [("modern", "modern"), ("dual", "handshake"), ("bus", "modern")])
async def test_streamable_http_servers_of_each_era(kind: str, era: str, tmp_path: Path) -> None:
    from tests.fakes.mcp_eras import app

    with serve_app(app(kind)) as port:
        manager = await connect({"h": {"httpUrl": f"http://127.0.0.1:{port}/mcp"}}, tmp_path)
        try:
            status = manager.status("h")
            assert status.state is McpServerState.connected, status.message
            assert status.protocol.endswith(f"({era})")
            assert await run(manager, "era") == f"{kind} server answering"
            assert await run(manager, "grow") == "grew"
            await until_registered(manager, "late")
        finally:
            await manager.close()


def test_mcp_list_names_the_protocol(tmp_path: Path) -> None:
    import json
    import os
    import subprocess

    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    servers = {"old": {"command": sys.executable, "args": [RAW]},
               "new": {"command": sys.executable, "args": [ERAS, "modern"]}}
    (home / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": servers}))
    done = subprocess.run([sys.executable, "-m", "gemini_tui", "mcp", "list"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "GEMINI_CLI_HOME": str(home)})
    assert "✓ new:" in done.stdout and "protocol 2026-07-28 (modern)" in done.stdout, done.stdout + done.stderr
    assert "✓ old:" in done.stdout and "(handshake)" in done.stdout
