"""MCP servers of both protocol eras, real SDK servers: a server that answers `server/discover` (a current-SDK
one, also when it accepts the handshake) gets the modern protocol and its bus; a handshake-only server and a
hand-written 1.x-style one fall back to the handshake on the same connection (roots and plain list_changed keep
working there); each server's late tool reaches the model in the next request and runs; /mcp's status names
the protocol."""

from __future__ import annotations

import asyncio
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.events import McpServerState
from gemini_tui.core.mcp import McpManager
from gemini_tui.core.tooling.registry import ToolRegistry
from tests.fakes import warm_start
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


KINDS = {"dual": "modern", "modern": "modern", "bus": "modern", "handshake": "handshake"}


@pytest.mark.parametrize("kind", list(KINDS))
async def test_stdio_servers_of_each_era_connect_run_and_announce_tools(kind: str, tmp_path: Path) -> None:
    manager = await connect({"s": warm_start.server_entry(ERAS, kind)}, tmp_path)
    try:
        status = manager.status("s")
        assert status.state is McpServerState.connected, status.message
        assert status.protocol.endswith(f"({KINDS[kind]})"), status.protocol
        assert await run(manager, "era") == f"{kind} server answering"
        assert manager.registry.get(f"late_{kind}") is None
        assert await run(manager, "grow") == "grew"
        await until_registered(manager, f"late_{kind}")  # plain list_changed (handshake) or the bus (modern)
        assert await run(manager, f"late_{kind}") == f"late tool of {kind} ran"
    finally:
        await manager.close()


async def test_one_process_per_server_and_roots_on_the_handshake(tmp_path: Path) -> None:
    marker = tmp_path / "starts.log"
    servers = {}
    server = shlex.join(warm_start.server_command(ERAS))
    for kind in ("modern", "handshake"):
        wrapper = tmp_path / f"{kind}.sh"
        wrapper.write_text(f"#!/bin/sh\necho {kind} >> {marker}\nexec {server} {kind}\n")
        wrapper.chmod(0o755)
        servers[kind] = {"command": str(wrapper)}
    manager = await connect(servers, tmp_path)
    try:
        assert all(manager.status(k).state is McpServerState.connected for k in servers)
        assert sorted(marker.read_text().split()) == ["handshake", "modern"]  # no second start, no probe process
        assert await run(manager, "handshake__roots") == tmp_path.resolve().as_uri()  # it asked for roots
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


@pytest.mark.parametrize("kind", list(KINDS))
async def test_streamable_http_servers_of_each_era(kind: str, tmp_path: Path) -> None:
    from tests.fakes.mcp_eras import app

    with serve_app(app(kind)) as port:
        manager = await connect({"h": {"httpUrl": f"http://127.0.0.1:{port}/mcp"}}, tmp_path)
        try:
            status = manager.status("h")
            assert status.state is McpServerState.connected, status.message
            assert status.protocol.endswith(f"({KINDS[kind]})")
            assert await run(manager, "era") == f"{kind} server answering"
            assert await run(manager, "grow") == "grew"
            await until_registered(manager, f"late_{kind}")
        finally:
            await manager.close()


def test_mcp_list_names_the_protocol(tmp_path: Path) -> None:
    import json
    import os
    import subprocess

    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    servers = {"old": {"command": sys.executable, "args": [RAW]},
               "new": warm_start.server_entry(ERAS, "modern")}
    (home / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": servers}))
    done = subprocess.run([*warm_start.command(os.environ), "mcp", "list"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "GEMINI_CLI_HOME": str(home)})
    assert "✓ new:" in done.stdout and "protocol 2026-07-28 (modern)" in done.stdout, done.stdout + done.stderr
    assert "✓ old:" in done.stdout and "(handshake)" in done.stdout


def test_each_servers_late_tool_is_declared_in_the_next_request_and_runs(tmp_path: Path) -> None:
    """One `gemini-tui -p` session with a current-SDK server announcing on the bus, a modern-only one and a
    handshake-only one: each `grow` call's new tool is in the very next request, and runs."""
    import json
    import os
    import subprocess

    from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

    kinds = ("bus", "modern", "handshake")
    root, home = tmp_path / "root", tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    root.mkdir()
    servers = {kind: warm_start.server_entry(ERAS, kind, env={"LANG": "C.UTF-8"}) for kind in kinds}
    (home / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": servers}))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GEMINI_CLI_HOME": str(home),
           "PYTHONPATH": str(FAKES.parents[1]), "LANG": "C.UTF-8"}
    with FakeGeminiServer() as server:
        server.script(reply(*(call(f"{kind}__grow") for kind in kinds)),
                      reply(*(call(f"{kind}__late_{kind}") for kind in kinds)), reply(text("All grown.")))
        env |= {"GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": server.base_url}
        done = subprocess.run([*warm_start.command(env), "-p", "grow", "--yolo", "--trust"], cwd=root,
                              env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        first, second = server.requests[0].function_names(), server.requests[1].function_names()
        responses = json.dumps(server.function_responses(2))
    for kind in kinds:
        late = f"{kind}__late_{kind}"  # (the servers share tool names, so each is named with its server)
        assert late not in first and late in second, f"{kind}: {' '.join(second)}"
        assert f"late tool of {kind} ran" in responses, responses
    assert "All grown." in done.stdout
