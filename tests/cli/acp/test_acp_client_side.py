"""The client's side of the session: its editor buffers (fs/*) and its terminal (terminal/*), when advertised,
still behind the roots, the protected paths and the policy."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import acp
import pytest
import pytest_asyncio
from acp.schema import ClientCapabilities, FileSystemCapabilities

from tests.cli.acp.harness import RecordingClient, SharedAgent, running_agent, shared_agent
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

# the tests of a client with a terminal share one agent process (below), each with a session of its own
pytestmark = [pytest.mark.timeout(90), pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.xdist_group("acp-client-side")]

EDITOR = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True, write_text_file=True))


async def test_reads_and_writes_go_through_the_editors_buffers(root: Path, home: Path, tmp_path: Path,
                                                              gemini_server: FakeGeminiServer) -> None:
    (root / "a.txt").write_text("on disk\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "out").symlink_to(outside)
    gemini_server.script(
        reply(call("read_file", file_path=str(root / "a.txt"))),
        reply(call("replace", file_path=str(root / "a.txt"), old_string="unsaved", new_string="edited")),
        reply(call("write_file", file_path=str(root / "new.txt"), content="fresh\n")),
        reply(call("write_file", file_path=str(root / "out" / "escape.txt"), content="x")),
        reply(call("write_file", file_path=str(root / ".git" / "config"), content="x")),
        reply(text("Done.")))
    # autoEdit: edits run unasked, but a protected path still asks (and is rejected here)
    client = RecordingClient(choose=lambda call, _o: "cancel" if ".git" in str(call.raw_input) else "proceed_once")
    client.buffers[str(root / "a.txt")] = "unsaved buffer text\n"
    async with running_agent(root, gemini_server.base_url, home, client, caps=EDITOR) as (conn, _, _p):
        session = await conn.new_session(cwd=str(root), mcp_servers=[])
        await conn.set_session_mode(session_id=session.session_id, mode_id="autoEdit")
        await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("work")])
    # the model read the editor's unsaved text, and the edits landed in the buffers, not on disk
    assert "unsaved buffer text" in str(gemini_server.function_responses(1))
    assert client.buffers[str(root / "a.txt")] == "edited buffer text\n"
    assert client.buffers[str(root / "new.txt")] == "fresh\n"
    assert (root / "a.txt").read_text() == "on disk\n" and not (root / "new.txt").exists()
    # a link out of the root and a protected path never reached the editor (nor the disk)
    assert [q["tool_call"]["rawInput"]["file_path"] for q in client.questions] == [str(root / ".git" / "config")]
    written = [path for kind, path in client.file_requests if kind == "write"]
    assert written == [str(root / "a.txt"), str(root / "new.txt")]
    assert not (outside / "escape.txt").exists() and not (root / ".git" / "config").exists()
    statuses = [s[-1] for s in client.call_statuses().values()]
    assert statuses == ["completed", "completed", "completed", "failed", "failed"]


TERMINAL = ClientCapabilities(terminal=True)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def terminal_process(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[SharedAgent]:
    """One agent process for the module's client with a terminal (and no fs)."""
    async with shared_agent(tmp_path_factory.mktemp("terminal"), caps=TERMINAL) as shared:
        yield shared


@pytest.fixture
def terminal_agent(terminal_process: SharedAgent) -> SharedAgent:
    terminal_process.server.reset()
    return terminal_process


async def test_without_fs_the_disk_is_used(root: Path, terminal_agent: SharedAgent) -> None:
    terminal_agent.server.script(reply(call("write_file", file_path=str(root / "new.txt"), content="disk\n")),
                                 reply(text("Done.")))
    conn, client = terminal_agent.serving()  # a client without fs (its terminal plays no part here)
    session = await conn.new_session(cwd=str(root), mcp_servers=[])
    await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("work")])
    assert (root / "new.txt").read_text() == "disk\n" and not client.file_requests


async def test_commands_run_in_the_clients_terminal_after_the_policy(root: Path, terminal_agent: SharedAgent) -> None:
    terminal_agent.server.script(reply(call("run_shell_command", command="echo in-$((6*7)); exit 3")),
                                 reply(call("run_shell_command", command="touch refused.txt")),
                                 reply(text("Done.")))
    client = RecordingClient(choose=lambda call, _o: "cancel" if "touch" in str(call.raw_input) else "proceed_once")
    conn, client = terminal_agent.serving(client)
    session = await conn.new_session(cwd=str(root), mcp_servers=[])
    await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("run")])
    created = [r for kind, r in client.terminal_requests if kind == "create"]
    assert len(created) == 1  # the refused command never reached the terminal
    argv = created[0]["argv"]
    assert argv[-3:] == ["bash", "-c", "echo in-$((6*7)); exit 3"]
    if len(argv) > 3:  # in the sandbox (the default): bwrap replaces the editor's environment with the minimal one
        assert "--clearenv" in argv and not any("GEMINI_API_KEY" in word or "GOOGLE_" in word for word in argv)
    assert created[0]["cwd"] == str(root) and created[0]["env"]["GEMINI_CLI"] == "1"
    assert [kind for kind, _ in client.terminal_requests] == ["create", "wait", "output", "release"]
    # the model saw the terminal's output and exit code; the running call showed the terminal
    answer = str(terminal_agent.server.function_responses(1))
    assert "in-42" in answer and "Exit Code: 3" in answer
    updates = [u for u in client.of("tool_call_update")
               if any(c.get("type") == "terminal" for c in u.get("content", []))]
    assert updates and updates[0]["content"][0]["terminalId"] == "term-1"
    assert not (root / "refused.txt").exists()


async def test_cancel_kills_the_clients_terminal(root: Path, terminal_agent: SharedAgent) -> None:
    terminal_agent.server.script(reply(call("run_shell_command", command="sleep 60")), reply(text("Stopped.")))
    conn, client = terminal_agent.serving()
    session = await conn.new_session(cwd=str(root), mcp_servers=[])
    await conn.set_session_mode(session_id=session.session_id, mode_id="yolo")
    turn = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[acp.text_block("wait")]))
    for _ in range(500):
        if client.terminals:
            break
        await asyncio.sleep(0.02)
    await conn.cancel(session_id=session.session_id)
    assert (await asyncio.wait_for(turn, 30)).stop_reason == "cancelled"
    assert [kind for kind, _ in client.terminal_requests][-3:] == ["kill", "output", "release"]
    assert client.terminals["term-1"]["process"].returncode is not None
