"""MCP against real servers: the fake server over stdio (a process) and over streamable HTTP and SSE
(in-process, real sockets), plus mcp-server-time and mcp-server-git from PyPI."""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import McpConfirmation
from gemini_tui.core.ground.display import McpResult
from gemini_tui.core.ground.events import EventBus, McpServerState, McpServerStatusChanged
from gemini_tui.core.ground.parts import InlineDataPart, TextPart
from gemini_tui.core.ground.tool_result import ToolErrorKind, ToolResult
from gemini_tui.core.mcp import DiscoveredMCPTool, McpManager
from gemini_tui.core.tooling.discovered_tool import DiscoveredParams
from gemini_tui.core.tooling.registry import ToolRegistry
from gemini_tui.core.tooling.tool import BaseTool
from tests.fakes import warm_start
from tests.fakes.mcp_http import serve_mcp

FAKE = str(Path(__file__).resolve().parents[2] / "fakes" / "mcp_server.py")
BIN = Path(sys.executable).parent

# the four tests of the `fake` fixture only read its tools and call them (none changes, crashes or stops the
# server), so they share one server process; the tests that check a crash or a real server start their own
pytestmark = pytest.mark.xdist_group("mcp-fake-stdio")
shared = pytest.mark.asyncio(loop_scope="module")  # the loop the shared server's connection lives in


def stdio(**extra: Any) -> dict[str, Any]:
    return {**warm_start.server_entry(FAKE), **extra}


async def connect(servers: dict[str, Any], tmp_path: Path, *, timeout: float = 30,
                  bus: EventBus | None = None) -> McpManager:
    manager = McpManager(servers, ToolRegistry(), bus, root=tmp_path, log_dir=tmp_path / "logs")
    assert await manager.wait_ready(timeout)
    return manager


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def fake(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[McpManager]:
    manager = await connect({"fake": stdio()}, tmp_path_factory.mktemp("fake"))
    yield manager
    await manager.close()


@pytest.fixture(scope="module")
def web() -> Iterator[str]:
    """The fake server over streamable HTTP in this process, for the tests where the transport is beside the
    point (names, filters, a clash): a connection of its own each, no process start (~2 s of CPU each)."""
    with serve_mcp("http") as url:
        yield url


def http(url: str, **extra: Any) -> dict[str, Any]:
    return {"httpUrl": url, **extra}


async def call(tool: BaseTool[Any], args: dict[str, Any]) -> ToolResult:
    params = tool.validate_params(args)
    assert isinstance(params, DiscoveredParams), params
    return await tool.execute(params, AbortSignal())


def tool_of(manager: McpManager, name: str) -> DiscoveredMCPTool:
    tool = manager.registry.get(name)
    assert isinstance(tool, DiscoveredMCPTool), sorted(t.name for t in manager.registry.tools)
    return tool


@shared
async def test_stdio_tools_registered_and_bad_schema_skipped(fake: McpManager) -> None:
    status = fake.status("fake")
    assert status.state is McpServerState.connected
    assert set(status.tool_names) == {"echo", "add", "picture", "resources", "fail", "dotted-name.tool", "crash",
                                      "exit_soon"}
    assert status.tool_count == 8
    assert any(s.startswith("walk:") and "recursive" in s for s in status.skipped_tools)
    assert "walk" in status.message
    declaration = tool_of(fake, "add").function_declaration()
    assert declaration["parameters"] == {"type": "object", "required": ["a", "b"],
                                         "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}


@shared
async def test_calls_map_results_to_parts(fake: McpManager) -> None:
    result = await call(tool_of(fake, "echo"), {"text": "hi"})
    assert result.ok and result.llm_content == "echo: hi"
    assert isinstance(result.return_display, McpResult) and result.return_display.server == "fake"
    picture = await call(tool_of(fake, "picture"), {})
    assert isinstance(picture.llm_content, list)
    assert picture.llm_content[0] == TextPart("a pixel")
    assert isinstance(picture.llm_content[1], InlineDataPart) and picture.llm_content[1].mime_type == "image/png"
    assert isinstance(picture.return_display, McpResult) and len(picture.return_display.images) == 1
    resources = await call(tool_of(fake, "resources"), {})
    assert isinstance(resources.llm_content, list)
    assert TextPart("[Resource file:///notes.txt (text/plain)]\nnote body") in resources.llm_content
    # an embedded binary resource reaches the model as inline data (issue 11), as in Gemini CLI
    assert TextPart("[Resource file:///x.bin (application/octet-stream)]") in resources.llm_content
    assert InlineDataPart("application/octet-stream", "AAEC") in resources.llm_content
    # the connection drops content blocks of unknown types before the SDK validates the result
    session = fake.connections["fake"]._client.session
    assert session._dispatcher.send_raw_request.__name__ == "send_lenient"


@shared
async def test_error_result_and_confirmation(fake: McpManager) -> None:
    failed = await call(tool_of(fake, "fail"), {})
    assert failed.error is not None and failed.error.kind is ToolErrorKind.execution_failed
    assert "Error executing tool fail" in failed.llm_content
    tool = tool_of(fake, "add")
    params = tool.validate_params({"a": 1, "b": 2})
    details = await tool.should_confirm_execute(params, AbortSignal())
    assert isinstance(details, McpConfirmation)
    assert (details.server_name, details.tool_name) == ("fake", "add")
    assert '"a": 1' in details.arguments
    missing = tool.validate_params({"a": 1})
    assert not isinstance(missing, DiscoveredParams) and missing.kind is ToolErrorKind.invalid_params


@shared
async def test_stderr_goes_to_the_log_file(fake: McpManager, capfd: pytest.CaptureFixture[str]) -> None:
    await call(tool_of(fake, "echo"), {"text": "secret-stderr-line"})
    await asyncio.sleep(0.2)
    assert "secret-stderr-line" not in capfd.readouterr().err
    log_path = fake.status("fake").log_path
    assert log_path and "secret-stderr-line" in Path(log_path).read_text()


async def test_crash_in_the_middle_of_a_call(tmp_path: Path) -> None:
    bus = EventBus()
    events = bus.subscribe()
    manager = await connect({"fake": stdio(trust=True)}, tmp_path, bus=bus)
    try:
        crash = tool_of(manager, "crash")
        echo = tool_of(manager, "echo")
        assert crash.needs(crash.validate_params({})).trusted_server  # the policy runs it unasked
        result = await asyncio.wait_for(call(crash, {}), 15)
        assert result.error is not None and result.error.kind is ToolErrorKind.execution_failed
        assert "failed during the call" in result.llm_content
        status = manager.status("fake")
        assert status.state is McpServerState.failed and "crashed" in status.message
        assert "echo" not in manager.registry  # its tools are withdrawn
        later = await call(echo, {"text": "x"})
        assert later.error is not None and "not connected" in later.llm_content
    finally:
        await manager.close()
    bus.close()
    states = [e.state async for e in events if isinstance(e, McpServerStatusChanged)]
    assert states[:2] == [McpServerState.connecting, McpServerState.connected]
    assert McpServerState.failed in states


async def test_several_servers_prefix_names_and_filter(tmp_path: Path, web: str) -> None:
    servers = {
        "one": http(web, includeTools=["echo", "add(x)", "fail"], excludeTools=["fail"]),
        "two.srv": http(web, excludeTools=["crash", "picture", "resources", "fail", "dotted-name.tool",
                                           "exit_soon"]),
    }
    manager = await connect(servers, tmp_path)
    try:
        assert manager.status("one").tool_names == ("one__echo", "one__add")
        assert set(manager.status("two.srv").tool_names) == {"two.srv__echo", "two.srv__add"}
        result = await call(tool_of(manager, "two.srv__add"), {"a": 2, "b": 3})
        assert result.llm_content == "5"
    finally:
        await manager.close()


async def test_failing_servers_are_reported_others_connect(tmp_path: Path, web: str) -> None:
    servers = {
        "good": http(web),
        "missing": {"command": "/nonexistent/mcp-server"},
        "dies": {"command": sys.executable, "args": ["-c", "import sys; sys.exit(1)"]},
        "silent": {"command": sys.executable, "args": ["-c", "import time; time.sleep(30)"], "timeout": 1500},
        "empty": {},
    }
    manager = McpManager(servers, ToolRegistry(), root=tmp_path, log_dir=tmp_path / "logs")
    try:
        assert await manager.wait_ready(20)
        states = {s.server: s for s in manager.statuses()}
        assert states["good"].state is McpServerState.connected
        for alias in ("missing", "dies", "silent", "empty"):
            assert states[alias].state is McpServerState.failed, alias
            assert states[alias].message
        assert "did not connect within 1.5 s" in states["silent"].message
        assert "good__echo" in manager.registry
    finally:
        await manager.close()


async def test_name_clash_with_a_builtin_gets_the_server_prefix(tmp_path: Path, web: str) -> None:
    registry = ToolRegistry()
    manager = McpManager({"fake": http(web, includeTools=["echo"])}, registry, root=tmp_path, log_dir=tmp_path / "l")
    placeholder = DiscoveredMCPTool(manager.connections["fake"], "echo", "echo", "builtin stand-in", {})
    registry.register(placeholder)
    try:
        assert await manager.wait_ready(30)
        assert manager.status("fake").tool_names == ("fake__echo",)
    finally:
        await manager.close()


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_http_transports(transport: str, tmp_path: Path) -> None:
    with serve_mcp(transport) as url:
        key = "httpUrl" if transport == "http" else "url"
        manager = await connect({"web": {key: url, "headers": {"X-Test": "1"}, "timeout": 20000}}, tmp_path)
        try:
            status = manager.status("web")
            assert status.state is McpServerState.connected, status.message
            assert status.transport == transport and status.log_path is None
            result = await call(tool_of(manager, "echo"), {"text": "over http"})
            assert result.llm_content == "echo: over http"
        finally:
            await manager.close()


async def test_mcp_server_time_from_pypi(tmp_path: Path) -> None:
    command = shutil.which("mcp-server-time", path=str(BIN))
    assert command, "mcp-server-time is a dev dependency"
    manager = await connect({"time": {"command": command, "args": ["--local-timezone", "UTC"]}}, tmp_path)
    try:
        assert "get_current_time" in manager.registry
        result = await call(tool_of(manager, "get_current_time"), {"timezone": "Europe/Paris"})
        assert result.ok and "Europe/Paris" in str(result.llm_content)
    finally:
        await manager.close()


async def test_mcp_server_git_from_pypi(tmp_path: Path) -> None:
    command = shutil.which("mcp-server-git", path=str(BIN))
    assert command, "mcp-server-git is a dev dependency"
    repo = tmp_path / "repo"
    repo.mkdir()
    proc = await asyncio.create_subprocess_exec("git", "init", "-q", str(repo))
    await proc.wait()
    (repo / "new.txt").write_text("x")
    manager = await connect({"git": {"command": command, "args": ["--repository", str(repo)]}}, tmp_path)
    try:
        assert "git_status" in manager.registry
        result = await call(tool_of(manager, "git_status"), {"repo_path": str(repo)})
        assert result.ok and "new.txt" in str(result.llm_content)
    finally:
        await manager.close()


async def test_crash_while_idle_is_reported_without_a_call(tmp_path: Path) -> None:
    manager = await connect({"fake": stdio()}, tmp_path)
    try:
        assert (await call(tool_of(manager, "exit_soon"), {})).llm_content == "bye"
        for _ in range(50):
            if manager.status("fake").state is McpServerState.failed:
                break
            await asyncio.sleep(0.1)
        assert manager.status("fake").state is McpServerState.failed
        assert "closed the connection" in manager.status("fake").message
    finally:
        await manager.close()


async def test_a_silent_server_is_reported_when_its_time_is_up_not_after_shutdown(tmp_path: Path) -> None:
    # ending a stdio server takes its own seconds (stdin closed, a grace period, then a signal): the user waits
    # for the connect timeout only, so the failure is reported while the process is still being ended
    import os

    from gemini_tui.core.mcp.connection import McpConnection
    from gemini_tui.core.setup.config import McpServerConfig

    pidfile = tmp_path / "pid"
    script = f"import os, time; open({str(pidfile)!r}, 'w').write(str(os.getpid())); time.sleep(30)"
    config = McpServerConfig(command=sys.executable, args=["-c", script], timeout=1000)
    alive_when_failed: list[bool] = []

    def changed(connection: McpConnection) -> None:
        if connection.state is McpServerState.failed:
            try:
                os.kill(int(pidfile.read_text()), 0)
                alive_when_failed.append(True)
            except ProcessLookupError:
                alive_when_failed.append(False)

    connection = McpConnection("silent", config, root=tmp_path, log_dir=tmp_path / "logs", on_change=changed)
    connection.start()
    await asyncio.wait_for(connection.wait_ready(), 20)
    await connection.close()
    assert alive_when_failed == [True]
    assert connection.message == "did not connect within 1 s"


def test_unknown_blocks_are_dropped_and_links_show_their_title() -> None:
    import random

    from mcp_types import CallToolResult

    from gemini_tui.core.mcp.results import drop_unknown_blocks, result_parts

    rng = random.Random(4)
    known = [{"type": "text", "text": "hello"}, {"type": "image", "data": "AAEC", "mimeType": "image/png"},
             {"type": "resource_link", "uri": "file:///a.md", "name": "a.md", "title": "The A file"}]
    odd = [{"type": "weird", "x": 1}, {"type": "hologram", "data": "..."}, {"no_type": True}, "text", 5, None]
    for _ in range(50):
        blocks = rng.sample(known, rng.randint(1, 3)) + rng.sample(odd, rng.randint(1, 3))
        rng.shuffle(blocks)
        raw = drop_unknown_blocks({"content": blocks, "isError": False})
        result = CallToolResult.model_validate(raw)  # what the SDK does next: it must not fail now
        assert [b.type for b in result.content] == [b["type"] for b in blocks if b in known]
    link = result_parts(CallToolResult.model_validate(drop_unknown_blocks({"content": [known[2]]})))
    assert link == [TextPart("Resource link: The A file file:///a.md")]


async def test_a_block_of_an_unknown_type_is_dropped_end_to_end(tmp_path: Path) -> None:
    raw = str(Path(__file__).resolve().parents[2] / "fakes" / "mcp_raw_server.py")
    manager = await connect({"raw": {"command": sys.executable, "args": [raw]}}, tmp_path)
    try:
        result = await call(tool_of(manager, "odd"), {})
        assert result.ok, result.llm_content
        assert result.llm_content == "kept text\nResource link: The A file file:///a.md"
    finally:
        await manager.close()
