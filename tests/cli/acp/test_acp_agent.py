"""`gemini-tui --acp` through the SDK's client side: lifecycle, each update kind, permissions, modes, models."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

import acp
import pytest
from acp import RequestError

from tests.cli.acp.harness import RecordingClient, SharedAgent, until
from tests.fakes.gemini_server import call, error_reply, reply, text, thought

# one agent process for the module (conftest.py): each test a session of its own, in its own folder
pytestmark = [pytest.mark.timeout(90), pytest.mark.asyncio(loop_scope="module"), pytest.mark.xdist_group("acp-agent")]


def edits_and_command(root: Path) -> tuple:
    return (reply(thought("Let me look."), text("Reading first."), call("read_file", file_path=str(root / "a.txt"))),
            reply(call("write_file", file_path=str(root / "b.txt"), content="new\n")),
            reply(call("replace", file_path=str(root / "a.txt"), old_string="hello", new_string="bye")),
            reply(call("run_shell_command", command="echo out-$((20+22))")),
            reply(text("All done.")))


async def test_initialize_and_new_session_advertise_what_exists(root: Path, agent: SharedAgent) -> None:
    commands = root / ".gemini" / "commands"
    commands.mkdir(parents=True)
    (commands / "greet.toml").write_text('description = "Says hello"\nprompt = "Say hello to {{args}}"\n')
    init = agent.init  # the process's answer to initialize
    caps = init.agent_capabilities
    assert init.protocol_version == 1
    assert caps.load_session and caps.prompt_capabilities.image and caps.prompt_capabilities.embedded_context
    assert caps.mcp_capabilities.http and caps.mcp_capabilities.sse
    assert caps.session_capabilities.list is not None
    assert [m.id for m in init.auth_methods] == ["gemini-api-key"]
    conn, client = agent.serving()
    session = await conn.new_session(cwd=str(root), mcp_servers=[])
    assert [m.id for m in session.modes.available_modes] == ["default", "autoEdit", "yolo", "plan"]
    assert session.modes.current_mode_id == "default"
    model = session.config_options[0]
    assert model.id == "model" and model.current_value == "gemini-2.5-flash"
    await until(lambda: bool(client.of("available_commands_update")))
    offered = client.of("available_commands_update")[-1]["availableCommands"]
    assert {"name": "greet", "description": "Says hello"}.items() <= offered[0].items()


async def test_a_turn_sends_every_update_kind_and_asks_before_changes(root: Path, agent: SharedAgent) -> None:
    (root / "a.txt").write_text("hello\n")
    agent.server.script(*edits_and_command(root))
    conn, client = agent.serving()
    session = await conn.new_session(cwd=str(root), mcp_servers=[])
    answer = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("go")])
    assert answer.stop_reason == "end_turn"
    assert client.text("agent_thought_chunk") == "Let me look."
    assert client.text() == "Reading first.All done."
    assert client.of("usage_update") and all(u["size"] > 0 for u in client.of("usage_update"))
    starts = client.of("tool_call")
    assert [(s["kind"], s["status"]) for s in starts] == [
        ("read", "in_progress"), ("edit", "pending"), ("edit", "pending"), ("execute", "pending")]
    assert starts[0]["locations"] == [{"path": str(root / "a.txt")}]
    assert starts[1]["rawInput"] == {"file_path": str(root / "b.txt"), "content": "new\n"}
    # each change was asked once, with its diff or its command line, and the four outcomes
    assert len(client.questions) == 3
    first = client.questions[0]
    assert first["options"] == ["proceed_once", "proceed_always", "proceed_always_and_save", "cancel"]
    assert first["tool_call"]["content"] == [{"type": "diff", "path": str(root / "b.txt"), "newText": "new\n"}]
    assert client.questions[1]["tool_call"]["content"][0]["oldText"] == "hello\n"
    assert client.questions[2]["tool_call"]["content"][0]["content"]["text"] == "echo out-$((20+22))"
    assert list(client.call_statuses().values()) == [
        ["in_progress", "completed"], *[["pending", "in_progress", "completed"]] * 3]
    finals = [u for u in client.of("tool_call_update") if u.get("status") == "completed"]
    assert finals[1]["content"][0]["type"] == "diff" and finals[2]["content"][0]["newText"] == "bye\n"
    assert "out-42" in finals[3]["content"][0]["content"]["text"]
    assert (root / "b.txt").read_text() == "new\n" and (root / "a.txt").read_text() == "bye\n"


@pytest.mark.parametrize("answer", ["cancel", "cancelled"])
async def test_a_rejected_or_cancelled_question_changes_nothing(root: Path, agent: SharedAgent,
                                                               answer: str) -> None:
    agent.server.script(reply(call("write_file", file_path=str(root / "b.txt"), content="x")), reply(text("Ok.")))
    client = RecordingClient(choose=lambda _c, _o: answer)
    conn, client = agent.serving(client)
    session = await conn.new_session(cwd=str(root), mcp_servers=[])
    result = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("write")])
    assert not (root / "b.txt").exists()
    assert list(client.call_statuses().values()) == [["pending", "failed"]]
    assert result.stop_reason in ("end_turn", "cancelled")


async def test_session_cancel_ends_an_unanswered_question(root: Path, agent: SharedAgent) -> None:
    agent.server.script(reply(call("write_file", file_path=str(root / "b.txt"), content="x")), reply(text("Ok.")))
    client = RecordingClient(choose=lambda _c, _o: "never")
    conn, client = agent.serving(client)
    session = await conn.new_session(cwd=str(root), mcp_servers=[])
    turn = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[acp.text_block("write")]))
    await asyncio.wait_for(client.asked.wait(), 30)
    await conn.cancel(session_id=session.session_id)
    result = await asyncio.wait_for(turn, 20)
    assert result.stop_reason == "cancelled"
    assert not (root / "b.txt").exists()


async def test_allow_for_the_session_is_not_asked_again(root: Path, agent: SharedAgent) -> None:
    agent.server.script(reply(call("write_file", file_path=str(root / "b.txt"), content="1")),
                        reply(call("write_file", file_path=str(root / "c.txt"), content="2")), reply(text("Ok.")))
    client = RecordingClient(choose=lambda _c, _o: "proceed_always")
    conn, client = agent.serving(client)
    session = await conn.new_session(cwd=str(root), mcp_servers=[])
    await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("write")])
    assert len(client.questions) == 1
    assert (root / "b.txt").read_text() == "1" and (root / "c.txt").read_text() == "2"


async def test_modes_switch_what_asks(root: Path, agent: SharedAgent) -> None:
    agent.server.script(reply(call("write_file", file_path=str(root / "plan.txt"), content="p")), reply(text("a")),
                        reply(call("write_file", file_path=str(root / "yolo.txt"), content="y")), reply(text("b")))
    conn, client = agent.serving()
    session = await conn.new_session(cwd=str(root), mcp_servers=[])
    sid = session.session_id
    await conn.set_session_mode(session_id=sid, mode_id="plan")
    await conn.prompt(session_id=sid, prompt=[acp.text_block("one")])
    assert not (root / "plan.txt").exists() and not client.questions  # plan refuses without asking
    await conn.set_session_mode(session_id=sid, mode_id="yolo")
    await conn.prompt(session_id=sid, prompt=[acp.text_block("two")])
    assert (root / "yolo.txt").read_text() == "y" and not client.questions
    with pytest.raises(RequestError):
        await conn.set_session_mode(session_id=sid, mode_id="auto_edit")  # ours, not Gemini CLI's id
    assert [u["currentModeId"] for u in client.of("current_mode_update")] == ["plan", "yolo"]
    assert [s[-1] for s in client.call_statuses().values()] == ["failed", "completed"]


async def test_the_model_option_switches_the_model(root: Path, agent: SharedAgent) -> None:
    conn, _ = agent.serving()
    session = await conn.new_session(cwd=str(root), mcp_servers=[])
    changed = await conn.set_config_option(config_id="model", session_id=session.session_id,
                                           value="gemini-2.5-pro")
    assert changed.config_options[0].current_value == "gemini-2.5-pro"
    await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("hi")])
    assert agent.server.requests[-1].model == "gemini-2.5-pro"


async def test_prompt_content_blocks_reach_the_model(root: Path, agent: SharedAgent) -> None:
    (root / "notes.md").write_text("linked file body\n")
    pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    conn, _ = agent.serving()
    session = await conn.new_session(cwd=str(root), mcp_servers=[])
    await conn.prompt(session_id=session.session_id, prompt=[
        acp.text_block("look at"), acp.resource_link_block("notes.md", (root / "notes.md").as_uri()),
        acp.resource_block(acp.embedded_text_resource("file:///x/y.txt", "embedded body"))])
    await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("and"),
                                                             acp.image_block(pixel, "image/png")])
    first = str(agent.server.requests[0].contents[-1])
    assert "linked file body" in first and "embedded body" in first
    parts = agent.server.requests[-1].contents[-1]["parts"]
    images = [p["inlineData"] for p in parts if "inlineData" in p]  # google-genai sends it url-safe
    assert [base64.urlsafe_b64decode(i["data"]) for i in images] == [base64.b64decode(pixel)]
    assert images[0].get("mimeType", images[0].get("mime_type")) == "image/png"


async def test_a_refusal_and_the_turn_limit_are_stop_reasons(root: Path, agent: SharedAgent) -> None:
    (root / ".gemini").mkdir()  # the folder's own settings: the agent's home is the other tests' too
    (root / ".gemini" / "settings.json").write_text('{"model": {"maxSessionTurns": 1}}')
    agent.server.script(reply(text("I can"), finish="SAFETY"),
                        reply(call("list_directory", dir_path=str(root))), reply(text("never reached")))
    conn, _ = agent.serving()
    session = await conn.new_session(cwd=str(root), mcp_servers=[])
    refused = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("bad")])
    limited = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("loop")])
    assert refused.stop_reason == "refusal"
    assert limited.stop_reason == "max_turn_requests"


async def test_a_failed_turn_is_a_json_rpc_error_and_the_session_goes_on(root: Path, agent: SharedAgent) -> None:
    agent.server.script(error_reply(400, "the request was malformed upstream"), reply(text("Fine now.")))
    conn, client = agent.serving()
    session = await conn.new_session(cwd=str(root), mcp_servers=[])
    with pytest.raises(RequestError) as failed:
        await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("one")])
    assert "malformed upstream" in str(failed.value.data)
    again = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("two")])
    assert again.stop_reason == "end_turn" and client.text() == "Fine now."


# Each built-in tool's kind as Gemini CLI 0.61 declares it (its tool classes), and a call that succeeds or fails
KINDS_AND_CALLS = [
    ("search", "list_directory", {"dir_path": "."}, "completed"),
    ("read", "read_file", {"file_path": "a.txt"}, "completed"),
    ("search", "glob", {"pattern": "*.txt"}, "completed"),
    ("search", "search_file_content", {"pattern": "hel+o"}, "completed"),
    ("read", "read_many_files", {"paths": ["a.txt"]}, "completed"),
    ("execute", "run_shell_command", {"command": "echo out-$((6*7)); echo err >&2; exit 3"}, "completed"),
    ("edit", "write_file", {"file_path": "b.txt", "content": "new\n"}, "completed"),
    ("edit", "replace", {"file_path": "a.txt", "old_string": "hello", "new_string": "bye"}, "completed"),
    ("think", "save_memory", {"fact": "the tests use a fake server"}, "completed"),
    ("read", "read_file", {"file_path": "missing.txt"}, "failed"),
    ("search", "list_directory", {"dir_path": "no-such-dir"}, "failed"),
]


async def test_every_finished_call_carries_what_the_model_received(root: Path, agent: SharedAgent) -> None:
    """A harness (Harbor's ACP runner) records each call's final update as its observation: `content` and
    `rawOutput.output` hold the text the model got, for every tool and for failures; commands add stdout and
    exit_code. Kinds are Gemini CLI's."""
    (root / "a.txt").write_text("hello\n")

    def absolute(args: dict[str, object]) -> dict[str, object]:
        return {k: str(root / v) if k in ("file_path", "dir_path") else v for k, v in args.items()}

    agent.server.script(*(reply(call(name, absolute(args))) for _, name, args, _ in KINDS_AND_CALLS),
                        reply(text("Done.")))
    conn, client = agent.serving()
    session = await conn.new_session(cwd=str(root), mcp_servers=[])
    await conn.set_session_mode(session_id=session.session_id, mode_id="yolo")
    answer = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("go")])
    assert answer.stop_reason == "end_turn"
    starts = client.of("tool_call")
    finals = [u for u in client.of("tool_call_update") if u.get("status") in ("completed", "failed")]
    assert len(starts) == len(finals) == len(KINDS_AND_CALLS)
    for index, ((kind, name, _, status), start, final) in enumerate(zip(KINDS_AND_CALLS, starts, finals,
                                                                        strict=True)):
        [response] = agent.server.function_responses(index + 1)
        received = response["response"].get("output", response["response"].get("error"))
        assert (start["kind"], final["status"]) == (kind, status), name
        assert received and final["rawOutput"]["output"] == received, name
        assert final["content"][-1]["content"]["text"] == received, name
    shell = finals[5]["rawOutput"]
    assert shell["exit_code"] == 3 and "out-42" in shell["stdout"] and "err" in shell["stdout"]
    assert finals[9]["rawOutput"]["error"]["kind"] == "file_not_found"
    assert finals[7]["content"][0]["type"] == "diff"
