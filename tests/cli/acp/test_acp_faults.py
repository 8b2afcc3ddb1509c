"""Bad input and faults: a JSON-RPC error or a clean end; never a traceback on stdout, a hang or an orphan."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path
from typing import Any

import acp
import pytest
from acp import RequestError

from tests.cli.acp.harness import RecordingClient, agent_command, agent_env, running_agent
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

pytestmark = pytest.mark.timeout(90)


class RawAgent:
    """The agent process spoken to line by line, to send what no SDK would."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []

    async def send(self, raw: str | dict[str, Any]) -> None:
        data = raw if isinstance(raw, str) else json.dumps(raw)
        assert self.process.stdin is not None
        self.process.stdin.write(data.encode() + b"\n")
        await self.process.stdin.drain()

    async def response(self, request_id: Any, timeout_s: float = 30) -> dict[str, Any]:
        """The response with this id (notifications before it are kept in `lines`)."""
        assert self.process.stdout is not None
        while True:
            line = (await asyncio.wait_for(self.process.stdout.readline(), timeout_s)).decode()
            assert line, "the agent closed stdout"
            self.lines.append(line)
            message = json.loads(line)  # every stdout line is JSON-RPC, nothing else
            if "id" in message and "method" not in message and message["id"] == request_id:
                return message


async def start_raw(root: Path, base_url: str, home: Path) -> RawAgent:
    process = await asyncio.create_subprocess_exec(
        *agent_command(), cwd=str(root), env=agent_env(base_url, home), stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    return RawAgent(process)


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}


async def test_bad_messages_get_json_rpc_errors(root: Path, home: Path, gemini_server: FakeGeminiServer) -> None:
    agent = await start_raw(root, gemini_server.base_url, home)
    try:
        # before initialize
        await agent.send({"jsonrpc": "2.0", "id": "early", "method": "session/new", "params": {"cwd": str(root),
                                                                                               "mcpServers": []}})
        assert (await agent.response("early"))["error"]["code"] == -32600
        for raw, code in [("{not json", -32700), ("[1, 2]", -32600), ('"text"', -32600),
                          ('{"jsonrpc": "1.0", "id": 7, "method": "initialize"}', -32600),
                          ('{"jsonrpc": "2.0", "id": 8, "method": 42}', -32600)]:
            await agent.send(raw)
            reply_ = await agent.response(json.loads(raw).get("id") if raw.startswith("{\"") else None)
            assert reply_["error"]["code"] == code, raw
        await agent.send(INIT)
        assert (await agent.response(1))["result"]["protocolVersion"] == 1
        await agent.send({"jsonrpc": "2.0", "id": 2, "method": "no/such_method", "params": {}})
        assert (await agent.response(2))["error"]["code"] == -32601
        await agent.send({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
                          "params": {"sessionId": "nope", "prompt": [{"type": "text", "text": "hi"}]}})
        assert (await agent.response(3))["error"]["code"] == -32602
        await agent.send({"jsonrpc": "2.0", "id": 4, "method": "session/new", "params": {"cwd": "relative"}})
        assert (await agent.response(4))["error"]["code"] == -32602
        await agent.send({"jsonrpc": "2.0", "id": 5, "method": "session/new", "params": {"cwd": 12}})
        assert (await agent.response(5))["error"]["code"] == -32602
        assert agent.process.stdin is not None
        agent.process.stdin.close()
        assert await asyncio.wait_for(agent.process.wait(), 20) == 0
        rest = (await agent.process.stdout.read()).decode().splitlines()  # type: ignore[union-attr]
        assert all(json.loads(line) for line in rest)
    finally:
        if agent.process.returncode is None:
            agent.process.kill()


async def test_two_prompts_at_once_the_second_is_refused(root: Path, home: Path,
                                                        gemini_server: FakeGeminiServer) -> None:
    gemini_server.script(reply(text("slow answer"), delay_s=1.0))
    async with running_agent(root, gemini_server.base_url, home) as (conn, _client, _):
        session = await conn.new_session(cwd=str(root), mcp_servers=[])
        first = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[acp.text_block("one")]))
        await asyncio.sleep(0.3)
        with pytest.raises(RequestError):
            await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("two")])
        assert (await first).stop_reason == "end_turn"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie waiting for its parent counts as gone
        return Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[0] != "Z"
    except OSError:
        return False


async def test_closing_stdin_mid_turn_ends_the_agent_and_its_children(root: Path, home: Path,
                                                                     gemini_server: FakeGeminiServer) -> None:
    marker = root / "sleeper.pid"
    gemini_server.script(reply(call("run_shell_command", command=f"echo $$ > {marker}; exec sleep 60")))
    client = RecordingClient(choose=lambda _c, _o: "proceed_once")
    # --no-sandbox: `$$` must be the host's process id (inside the sandbox it is one of its own namespace)
    async with acp.spawn_agent_process(client, *agent_command("--no-sandbox"), cwd=str(root),
                                       env=agent_env(gemini_server.base_url, home)) as (conn, process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(root), mcp_servers=[])
        turn = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[acp.text_block("sleep")]))
        for _ in range(300):
            if marker.exists() and marker.read_text().strip():
                break
            await asyncio.sleep(0.05)
        sleeper = int(marker.read_text())
        assert _alive(sleeper)
        assert process.stdin is not None
        process.stdin.close()
        assert await asyncio.wait_for(process.wait(), 20) == 0
        turn.cancel()
    for _ in range(100):
        if not _alive(sleeper):
            break
        await asyncio.sleep(0.05)
    else:
        os.kill(sleeper, signal.SIGKILL)
        raise AssertionError("the command's process outlived the agent")


async def test_without_a_key_session_new_asks_for_authentication(root: Path, home: Path,
                                                                 gemini_server: FakeGeminiServer) -> None:
    async with running_agent(root, gemini_server.base_url, home, env={"GEMINI_API_KEY": ""}) as (conn, _, _p):
        with pytest.raises(RequestError) as refused:
            await conn.new_session(cwd=str(root), mcp_servers=[])
    assert refused.value.code == -32000  # auth_required: the client offers its sign-in
