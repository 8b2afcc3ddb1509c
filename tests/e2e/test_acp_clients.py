"""`gemini-tui --acp` with real ACP programs from npm, against the fake Gemini server: the headless client acpx
(with each of its permission policies), and Gemini CLI 0.61's own `gemini --acp` given the same script, compared
update kind by update kind, tool kind by tool kind, status by status and file by file (docs/acp.md lists what
differs on purpose)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import ClientCapabilities

from tests.cli.acp.harness import MODEL, RecordingClient
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text, thought
from tests.fakes.node_clients import NODE_ENVIRONMENT, acpx, gemini_cli

pytestmark = pytest.mark.timeout(240)


def script(root: Path) -> tuple:
    return (reply(thought("Looking."), text("Reading a.txt."), call("read_file", file_path=str(root / "a.txt"))),
            reply(call("write_file", file_path=str(root / "b.txt"), content="new\n")),
            reply(call("replace", file_path=str(root / "a.txt"), old_string="hello", new_string="bye",
                       instruction="greet less")),
            reply(call("run_shell_command", command="echo made > c.txt")),
            reply(text("All done.")))


def world(base: Path) -> tuple[Path, Path]:
    home, root = base / "home", base / "work"
    (home / ".gemini").mkdir(parents=True)
    root.mkdir()
    (root / "a.txt").write_text("hello\n")
    (home / ".gemini" / "settings.json").write_text(json.dumps({"security": {"auth": {
        "selectedType": "gemini-api-key"}}}))
    return home, root


def environment(home: Path, server: FakeGeminiServer) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GEMINI_CLI_HOME": str(home),
            "GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": server.base_url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true", "NO_COLOR": "1", **NODE_ENVIRONMENT}


def ours() -> list[str]:
    return [sys.executable, "-m", "gemini_tui.cli.main", "--acp", "-m", MODEL]


def files(root: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(root.iterdir()) if p.is_file()}


# -- acpx ---------------------------------------------------------------------------------------------------------
def run_acpx(flag: str, base: Path, server: FakeGeminiServer) -> tuple[int, list[dict[str, Any]], Path]:
    home, root = world(base)
    server.script(*script(root))
    agent = " ".join(ours())
    done = subprocess.run([*acpx(), "--agent", agent, "--cwd", str(root), flag, "--format", "json", "--timeout",
                           "120", "exec", "do the work"], env=environment(home, server), capture_output=True,
                          text=True, timeout=200)
    messages = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return done.returncode, messages, root


def answers(messages: list[dict[str, Any]]) -> list[str]:
    """The option each permission request was answered with, in order (acpx prints both directions; the
    ids of its requests and ours overlap, so an answer is known by its outcome)."""
    return [m["result"]["outcome"].get("optionId", m["result"]["outcome"]["outcome"]) for m in messages
            if isinstance(m.get("result"), dict) and "outcome" in m["result"] and "method" not in m]


def stop_reason(messages: list[dict[str, Any]]) -> str:
    return next(m["result"]["stopReason"] for m in messages if "stopReason" in (m.get("result") or {}))


def test_acpx_approve_all(tmp_path: Path, gemini_server: FakeGeminiServer) -> None:
    code, messages, root = run_acpx("--approve-all", tmp_path, gemini_server)
    assert code == 0
    assert answers(messages) == ["proceed_once"] * 3
    assert stop_reason(messages) == "end_turn"
    assert files(root) == {"a.txt": "bye\n", "b.txt": "new\n", "c.txt": "made\n"}


@pytest.mark.parametrize("flag", ["--approve-reads", "--deny-all"])
def test_acpx_refusing_writes(flag: str, tmp_path: Path, gemini_server: FakeGeminiServer) -> None:
    code, messages, root = run_acpx(flag, tmp_path, gemini_server)
    assert code != 0  # acpx says a permission was refused
    assert answers(messages) == ["cancel"] * 3  # reads never asked; every change refused
    assert stop_reason(messages) == "end_turn"
    assert files(root) == {"a.txt": "hello\n"}
    reads = [m for m in messages if (m.get("params") or {}).get("update", {}).get("kind") == "read"]
    assert reads and reads[0]["params"]["update"]["status"] == "in_progress"


# -- side by side with Gemini CLI ------------------------------------------------------------------------------
async def drive(program: list[str], base: Path, server: FakeGeminiServer) -> tuple[RecordingClient, dict[str, str]]:
    home, root = world(base)
    server.script(*script(root))
    client = RecordingClient()
    async with acp.spawn_agent_process(client, *program, cwd=str(root), env=environment(home, server)) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
        session = await conn.new_session(cwd=str(root), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("do the work")])
        assert answer.stop_reason == "end_turn"
    return client, files(root)


def shape(client: RecordingClient) -> dict[str, Any]:
    """What must match: the order of messages, thoughts and calls; each call's tool kind, whether it was asked,
    how it first showed and how it ended. (Titles, ids, wording and our usage updates are not compared.)"""
    order: list[str] = []
    calls: dict[str, dict[str, Any]] = {}
    asked = {q["tool_call"]["toolCallId"] for q in client.questions}
    for update in client.updates:
        kind = update["sessionUpdate"]
        if kind in ("agent_message_chunk", "agent_thought_chunk"):
            token = kind
        elif kind in ("tool_call", "tool_call_update"):
            record = calls.setdefault(update["toolCallId"], {"statuses": []})
            record.setdefault("kind", update.get("kind"))
            if "status" in update:
                record["statuses"].append(update["status"])
            token = f"call:{update['toolCallId']}"
        else:
            continue
        if not order or order[-1] != token:
            order.append(token)
    for question in client.questions:  # Gemini CLI asks before it shows the call
        call_id = question["tool_call"]["toolCallId"]
        calls.setdefault(call_id, {"statuses": [], "kind": question["tool_call"].get("kind")})
        if f"call:{call_id}" not in order:
            order.append(f"call:{call_id}")
    ids = {token: f"call{n}" for n, token in enumerate(t for t in order if t.startswith("call:"))}
    return {
        "order": [ids.get(t, t) for t in order],
        "calls": [{"kind": calls[t[5:]]["kind"], "asked": t[5:] in asked,
                   "first": "pending" if t[5:] in asked else calls[t[5:]]["statuses"][0],
                   "last": calls[t[5:]]["statuses"][-1]} for t in ids],
    }


async def test_side_by_side_with_gemini_cli(tmp_path: Path, gemini_server: FakeGeminiServer) -> None:
    theirs, their_files = await drive([*gemini_cli(), "--acp", "-m", MODEL], tmp_path / "gemini", gemini_server)
    mine, my_files = await drive(ours(), tmp_path / "ours", gemini_server)
    assert my_files == their_files == {"a.txt": "bye\n", "b.txt": "new\n", "c.txt": "made\n"}
    assert shape(mine) == shape(theirs), (shape(mine), shape(theirs))
    # both showed each edit as a diff before asking, and the command's words
    for client in (mine, theirs):
        contents = [q["tool_call"]["content"][0] for q in client.questions if q["tool_call"].get("content")]
        assert [c["type"] for c in contents][:2] == ["diff", "diff"]
