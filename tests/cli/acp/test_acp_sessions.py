"""session/list and session/load: a saved session is listed for its folder and replayed as updates."""

from __future__ import annotations

import asyncio
from pathlib import Path

import acp
import pytest
from acp import RequestError

from tests.cli.acp.harness import running_agent
from tests.fakes import warm_start
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

pytestmark = pytest.mark.timeout(90)


async def test_a_saved_session_is_listed_loaded_and_continued(root: Path, home: Path,
                                                              gemini_server: FakeGeminiServer) -> None:
    (root / "a.txt").write_text("hello\n")
    gemini_server.script(reply(text("Reading."), call("read_file", file_path=str(root / "a.txt"))),
                         reply(text("It says hello.")), reply(text("Still here.")))
    async with running_agent(root, gemini_server.base_url, home) as (conn, _, _p):
        session = await conn.new_session(cwd=str(root), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("what is in a.txt?")])
    async with running_agent(root, gemini_server.base_url, home) as (conn, client, _p):
        listed = await conn.list_sessions(cwd=str(root))
        assert [s.session_id for s in listed.sessions] == [session.session_id]
        assert listed.sessions[0].cwd == str(root) and listed.sessions[0].title == "what is in a.txt?"
        with pytest.raises(RequestError):
            await conn.load_session(cwd=str(root), session_id="no-such-session", mcp_servers=[])
        loaded = await conn.load_session(cwd=str(root), session_id=session.session_id, mcp_servers=[])
        assert loaded.modes.current_mode_id == "default"
        for _ in range(100):  # the loaded history's context share is reported as the client's usage
            if any(u["sessionUpdate"] == "usage_update" for u in client.updates):
                break
            await asyncio.sleep(0.02)
        [usage] = [u for u in client.updates if u["sessionUpdate"] == "usage_update"]
        assert 0 < usage["used"] < usage["size"] == 1_048_576
        replayed = [u for u in client.updates if u["sessionUpdate"] not in ("available_commands_update",
                                                                            "usage_update")]
        assert [u["sessionUpdate"] for u in replayed] == [
            "user_message_chunk", "agent_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"]
        assert replayed[0]["content"]["text"] == "what is in a.txt?"
        assert replayed[2]["kind"] == "read" and replayed[3]["status"] == "completed"
        assert replayed[4]["content"]["text"] == "It says hello."
        answer = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("and now?")])
        assert answer.stop_reason == "end_turn"
        other = root / "elsewhere"  # another folder lists none of them
        other.mkdir()
        assert (await conn.list_sessions(cwd=str(other))).sessions == []
    # the model saw the loaded conversation
    assert "what is in a.txt?" in str(gemini_server.requests[-1].contents)


async def test_the_clients_mcp_servers_join_under_the_users_rules(root: Path, home: Path,
                                                                  gemini_server: FakeGeminiServer) -> None:
    import json

    from acp.schema import McpServerStdio

    fake = str(Path(__file__).resolve().parents[2] / "fakes" / "mcp_server.py")
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({"mcp": {"excluded": ["blocked"]}}))
    command = warm_start.server_command(fake)
    servers = [McpServerStdio(name=name, command=command[0], args=[*command[1:], "stdio"], env=[])
               for name in ("fake", "blocked")]
    gemini_server.script(reply(text("Tools seen.")))
    async with running_agent(root, gemini_server.base_url, home) as (conn, _, _p):
        session = await conn.new_session(cwd=str(root), mcp_servers=servers)
        await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("which tools?")])
    names = gemini_server.requests[0].function_names()
    assert "echo" in names and "add" in names  # the client's server connected (its tools, unprefixed)
    assert not any(name.startswith("blocked") for name in names)
    assert names.count("echo") == 1  # mcp.excluded kept the second one out
