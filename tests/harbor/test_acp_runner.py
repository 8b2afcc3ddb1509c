"""Harbor's own ACP agent (`AcpAgent`, which uploads and runs its `acp_runner.py`) driving `gemini-tui --acp` from
the registry entry in acp-registry/, against the fake Gemini server; Gemini CLI 0.61's `gemini --acp` as the
control where it applies. What a fleet needs: the turn ends `end_turn`, every tool step of Harbor's trajectory
has the observation the model received, Harbor's model is the one asked for, `permission_mode=deny` ends in a
rejected call, a task's MCP server is connected and called, and a missing key is a failed run."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from harbor.agents.installed.acp import AcpAgent
from harbor.agents.installed.base import NonZeroAgentExitCodeError
from harbor.models.agent.context import AgentContext
from harbor.models.task.config import MCPServerConfig
from harbor.models.trajectories import Trajectory

from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text
from tests.fakes.node_clients import NODE_ENVIRONMENT, gemini_cli
from tests.harbor.conftest import REPO, VENV, World, make_world

pytestmark = pytest.mark.timeout(240)

ENTRY = REPO / "acp-registry" / "gemini-tui" / "agent.json"
HARBOR_MODEL = "gemini/gemini-2.5-flash-lite"  # Harbor's provider/model name; gemini-tui starts on another
INSTRUCTION = "Look at the project and write the notes."


async def run_acp(world: World, *, model: str | None = HARBOR_MODEL, permission_mode: str = "allow",
                  mcp_servers: list[MCPServerConfig] | None = None,
                  registry_entry: dict[str, Any] | None = None) -> tuple[dict[str, Any], Trajectory | None]:
    """One Harbor trial's agent part: set up (the registry entry's `local` distribution), run, read back."""
    source: dict[str, Any] = ({"registry_entry": registry_entry} if registry_entry is not None
                              else {"registry_entry_path": ENTRY})
    # skip_model_parsing: Harbor's LiteLLM lookup of the provider (litellm is not installed here); the name still
    # reaches the runner as given
    agent = AcpAgent(logs_dir=world.logs, model_name=model, permission_mode=permission_mode,  # type: ignore[arg-type]
                     distribution_preference="local", mcp_servers=mcp_servers, skip_install=True,
                     skip_model_parsing=True, **source)
    await agent.setup(world.environment)  # type: ignore[arg-type]
    context = AgentContext()
    try:
        await agent.run(INSTRUCTION, world.environment, context)  # type: ignore[arg-type]
    finally:
        agent.populate_context_post_run(context)
    summary = json.loads((world.logs / "acp-summary.json").read_text())
    path = world.logs / "trajectory.json"
    trajectory = Trajectory.model_validate_json(path.read_text()) if path.exists() else None
    return summary, trajectory


def tool_steps(trajectory: Trajectory) -> list[tuple[str, str, str]]:
    """(call id, Harbor's function name, observation) for every tool call of every step."""
    found = []
    for step in trajectory.steps:
        observed = {r.source_call_id: r.content for r in (step.observation.results if step.observation else [])}
        for tool_call in step.tool_calls or []:
            found.append((tool_call.tool_call_id, tool_call.function_name, observed.get(tool_call.tool_call_id, "")))
    return found


def received(server: FakeGeminiServer) -> dict[str, str]:
    """Every function response the model received, by call id: the output, or the error."""
    return {r["id"]: r["response"].get("output", r["response"].get("error"))
            for request in server.requests for r in request.function_responses()}


def mcp_server() -> MCPServerConfig:
    return MCPServerConfig(name="fake", transport="stdio", command=str(VENV / "bin" / "python"),
                           args=[str(REPO / "tests" / "fakes" / "mcp_server.py"), "stdio"])


async def test_a_task_runs_to_end_turn_with_every_observation(world: World,
                                                               gemini_server: FakeGeminiServer) -> None:
    root = world.root
    (root / "a.txt").write_text("alpha line\n")
    gemini_server.script(
        reply(text("Looking."), call("list_directory", dir_path=str(root))),
        reply(call("read_file", file_path=str(root / "a.txt")), call("glob", pattern="*.txt")),
        reply(call("search_file_content", pattern="alpha")),
        reply(call("run_shell_command", command="echo from-shell-$((40+2))")),
        reply(call("write_file", file_path=str(root / "notes.md"), content="# Notes\n")),
        reply(call("echo", text="via the task's MCP server")),
        reply(text("Done.")))
    summary, trajectory = await run_acp(world, mcp_servers=[mcp_server()])
    assert summary["prompt_response"]["stopReason"] == "end_turn", summary
    # Harbor asked for its model through the session's config option; every request went to it
    assert summary["resolved_session_model_id"] == "gemini-2.5-flash-lite"
    assert {r.model for r in gemini_server.requests} == {"gemini-2.5-flash-lite"}
    assert trajectory is not None
    steps = tool_steps(trajectory)
    sent = received(gemini_server)
    assert [name for _, name, _ in steps] == ["search", "read", "search", "search", "execute", "edit",
                                              steps[-1][1]]
    assert len(steps) == len(sent) == 7
    for call_id, name, observation in steps:  # Harbor's observation is what the model received, for every step
        assert observation and observation == sent[call_id], name
    assert "from-shell-42" in steps[4][2] and "alpha line" in steps[1][2]
    assert "via the task's MCP server" in steps[-1][2]  # the task's MCP server was connected and called
    assert (root / "notes.md").read_text() == "# Notes\n"


async def test_deny_ends_in_a_rejected_call(world: World, gemini_server: FakeGeminiServer) -> None:
    target = world.root / "notes.md"
    gemini_server.script(reply(call("write_file", file_path=str(target), content="x\n")), reply(text("Stopped.")))
    summary, trajectory = await run_acp(world, permission_mode="deny")
    assert summary["prompt_response"]["stopReason"] == "end_turn"
    assert summary["permissions_requested"] == 1 and not target.exists()
    assert trajectory is not None
    [(call_id, name, observation)] = tool_steps(trajectory)
    assert name == "edit" and observation == received(gemini_server)[call_id]
    assert "reject" in observation.lower() or "cancel" in observation.lower(), observation
    events = [json.loads(line) for line in (world.logs / "acp-events.jsonl").read_text().splitlines()]
    finals = [e["payload"]["update"] for e in events if e["event_type"] == "session_update"
              and e["payload"]["update"].get("sessionUpdate") == "tool_call_update"
              and e["payload"]["update"].get("status") in ("completed", "failed")]
    assert [f["status"] for f in finals] == ["failed"]


async def test_without_a_key_the_run_fails(tmp_path: Path, gemini_server: FakeGeminiServer) -> None:
    world = make_world(tmp_path, gemini_server, GEMINI_API_KEY="")
    with pytest.raises(NonZeroAgentExitCodeError):
        await run_acp(world)
    summary = json.loads((world.logs / "acp-summary.json").read_text())
    assert "GEMINI_API_KEY" in summary["error"]["message"] and "prompt_response" not in summary
    assert gemini_server.requests == []  # nothing answered in the key's stead


def control_script(root: Path) -> tuple:
    return (reply(text("Looking."), call("list_directory", dir_path=str(root))),
            reply(call("read_file", file_path=str(root / "a.txt"))),
            reply(call("glob", pattern="*.txt")),
            reply(call("write_file", file_path=str(root / "b.txt"), content="new\n")),
            reply(text("Done.")))


async def test_beside_gemini_cli(tmp_path: Path, gemini_server: FakeGeminiServer) -> None:
    """The same runner and script with Gemini CLI 0.61's `gemini --acp` (npm): both end the turn and report the
    same tool kinds; only gemini-tui's reads and searches carry an observation (Gemini CLI sends no result for
    them, so Harbor records them empty), and only gemini-tui creates the new file (Gemini CLI's write_file reads
    the file first through Harbor's client, which answers "not found" for a new one, and gives up)."""
    results = {}
    for who in ("gemini-tui", "gemini-cli"):
        world = make_world(tmp_path / who, gemini_server, **NODE_ENVIRONMENT)
        (world.root / "a.txt").write_text("alpha\n")
        (world.home / ".gemini").mkdir()
        (world.home / ".gemini" / "settings.json").write_text(json.dumps(
            {"security": {"auth": {"selectedType": "gemini-api-key"}}}))
        gemini_server.script(*control_script(world.root))
        entry = None
        if who == "gemini-cli":
            program = gemini_cli()
            entry = {"id": "gemini", "name": "Gemini CLI", "version": "0.61.0", "description": "control",
                     "distribution": {"local": {"cmd": program[0], "args": [*program[1:], "--acp", "-m",
                                                                            "gemini-2.5-flash-lite"]}}}
        start = len(gemini_server.requests)
        summary, trajectory = await run_acp(world, model=None if entry else HARBOR_MODEL, registry_entry=entry)
        assert summary["prompt_response"]["stopReason"] == "end_turn", (who, summary)
        assert {r.model for r in gemini_server.requests[start:]} == {"gemini-2.5-flash-lite"}, who
        assert trajectory is not None, who
        results[who] = tool_steps(trajectory)
        assert (world.root / "b.txt").exists() is (who == "gemini-tui"), who
    ours, theirs = results["gemini-tui"], results["gemini-cli"]
    assert [name for _, name, _ in ours] == [name for _, name, _ in theirs] == ["search", "read", "search", "edit"]
    assert all(observation for _, _, observation in ours)
    assert [bool(observation) for _, _, observation in theirs][:2] == [False, False], theirs
    assert "not found" in theirs[3][2].lower(), theirs


def test_the_registry_entry_is_harbors_and_this_version() -> None:
    from harbor.agents.installed.acp import AcpRegistryEntry

    import gemini_tui

    entry = AcpRegistryEntry.model_validate_json(ENTRY.read_text())
    assert entry.id == "gemini-tui" and entry.version == gemini_tui.__version__
    assert entry.distribution.uvx is not None and entry.distribution.uvx.args == ["--acp"]
    assert entry.distribution.local is not None and entry.distribution.local.args == ["--acp"]
    assert entry.distribution.uvx.package == f"gemini-tui@{gemini_tui.__version__}"
    assert sys.version_info >= (3, 12)  # Harbor's own interpreter
