"""Headless stream-json and ACP name the subagent that made a call and the invoke_agent call it belongs to."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from gemini_tui.cli.acp.updates import call_started
from gemini_tui.cli.headless import HeadlessPrinter, OutputFormat
from gemini_tui.core.ground.events import CallStateChanged, Event
from tests.core.agents.world import Router, agent_file, session_on
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


async def test_headless_and_acp_say_which_agent_made_a_call(root: Path, home: Path) -> None:
    (root / "notes.txt").write_text("hello\n")
    router = Router()
    agent_file(home / ".gemini" / "agents", "reader", "You are READER-BODY.", tools=["read_file"])
    router.script("READER-BODY", reply(call("read_file", absolute_path=str(root / "notes.txt"))),
                  reply(call("complete_task", result="read it")))
    router.script("parent", reply(call("invoke_agent", agent_name="reader", prompt="read notes.txt")),
                  reply(text("Done.")))
    started: list[object] = []

    def to_acp(event: Event) -> None:
        if isinstance(event, CallStateChanged) and event.call.name == "read_file" and not started:
            started.append(call_started(event.call, "read", root))

    with FakeGeminiServer() as server:
        server.responder = router
        session = session_on(server, root, home, interactive=False)
        session.bus.tap(to_acp)
        out, err = io.StringIO(), io.StringIO()
        assert await HeadlessPrinter(OutputFormat.stream_json, out, err).run(session, "read it") == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    uses = {line["tool_name"]: line for line in lines if line["type"] == "tool_use"}
    parent_id = uses["invoke_agent"]["tool_id"]
    assert "agent" not in uses["invoke_agent"]
    assert (uses["read_file"]["agent"], uses["read_file"]["parent_tool_id"]) == ("reader", parent_id)
    read_id = uses["read_file"]["tool_id"]
    results = [line for line in lines if line["type"] == "tool_result" and line["tool_id"] == read_id]
    assert results and results[0]["agent"] == "reader"
    acp_start = started[0]
    assert acp_start.title.startswith("reader: ")  # type: ignore[attr-defined]
    meta = acp_start.field_meta  # type: ignore[attr-defined]
    assert meta == {"geminiTui": {"agent": "reader", "parentToolCallId": parent_id}}
