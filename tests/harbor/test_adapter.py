"""`gemini_tui.harbor.GeminiTuiAgent`, Harbor's installed-agent base for gemini-tui: its run step (the headless
command Harbor runs in the task's container) against the fake Gemini server, and the ATIF trajectory gemini-tui
writes, validated by Harbor's own pydantic `Trajectory`: a 20-step run whose every observation is what the model
received. (`install()` downloads uv from the network, so it is not run here.)"""

from __future__ import annotations

import json

import pytest
from harbor.models.agent.context import AgentContext
from harbor.models.task.config import MCPServerConfig
from harbor.models.trajectories import Trajectory

from gemini_tui.harbor import GeminiTuiAgent
from gemini_tui.harbor.agent import STREAM_LOG
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text
from tests.fakes.long_run import make_workspace, script
from tests.harbor.conftest import REPO, VENV, World

pytestmark = pytest.mark.timeout(240)


def received(server: FakeGeminiServer) -> dict[str, str]:
    return {r["id"]: r["response"].get("output", r["response"].get("error"))
            for request in server.requests for r in request.function_responses()}


async def test_the_run_step_writes_a_twenty_step_atif_trajectory(world: World,
                                                                  gemini_server: FakeGeminiServer) -> None:
    make_workspace(world.root)
    gemini_server.script(*script(world.root, steps=20))
    agent = GeminiTuiAgent(logs_dir=world.logs, model_name="gemini/gemini-2.5-flash", skip_model_parsing=True)
    context = AgentContext()
    await agent.run("Work through the notes.", world.environment, context)  # type: ignore[arg-type]
    agent.populate_context_post_run(context)

    assert {r.model for r in gemini_server.requests} == {"gemini-2.5-flash"}
    command = world.environment.commands[-1]
    assert "--approval-mode yolo" in command and "-o stream-json" in command
    trajectory = agent.convert_trajectory(world.logs)  # Harbor's Trajectory: it validated
    assert isinstance(trajectory, Trajectory) and trajectory.schema_version == "ATIF-v1.8"
    agent_steps = [s for s in trajectory.steps if s.source == "agent"]
    assert len(agent_steps) == 21 and agent_steps[-1].message == "All done."
    sent = received(gemini_server)
    observed = {r.source_call_id: r.content for s in agent_steps if s.observation for r in s.observation.results}
    calls = [c for s in agent_steps for c in s.tool_calls or []]
    assert len(calls) == len(sent) == len(observed) > 20
    assert observed == sent  # every observation is exactly what the model received
    assert {c.function_name for c in calls} >= {"list_directory", "read_file", "glob", "search_file_content",
                                                "write_file", "replace", "run_shell_command", "read_many_files"}
    # Harbor's context has the run's tokens (the cost needs LiteLLM's prices, which this environment lacks)
    final = trajectory.final_metrics
    assert final is not None and context.n_input_tokens == final.total_prompt_tokens > 20_000
    assert context.n_output_tokens == final.total_completion_tokens and context.n_cache_tokens == 2000
    assert context.cost_usd is None
    # the stream-json events were teed to the logs folder
    events = [json.loads(line) for line in (world.logs / STREAM_LOG).read_text().splitlines()]
    assert events[0]["type"] == "init" and events[-1] == events[-1] | {"type": "result", "status": "success"}
    assert sum(e["type"] == "tool_use" for e in events) == len(calls)
    # the table's write_file row comes at steps 4, 12 and 20
    assert sorted(p.name for p in (world.root / "notes").iterdir()) == ["step12.txt", "step20.txt", "step4.txt"]


async def test_flags_mcp_servers_and_a_missing_key(world: World, gemini_server: FakeGeminiServer) -> None:
    server = MCPServerConfig(name="fake", transport="stdio", command=str(VENV / "bin" / "python"),
                             args=[str(REPO / "tests" / "fakes" / "mcp_server.py"), "stdio"])
    gemini_server.script(reply(call("echo", text="task server"), call("write_file",
                                                                      file_path=str(world.root / "x.txt"),
                                                                      content="x")),
                         reply(text("Done.")))
    agent = GeminiTuiAgent(logs_dir=world.logs, model_name="gemini/gemini-2.5-pro", skip_model_parsing=True,
                           mcp_servers=[server])
    await agent.configure(world.environment)  # type: ignore[arg-type]
    settings = json.loads((world.home / ".gemini" / "settings.json").read_text())
    assert settings["mcpServers"]["fake"]["args"][-1] == "stdio"
    await agent.run("Use the server.", world.environment, AgentContext())  # type: ignore[arg-type]
    answers = received(gemini_server)
    assert any("task server" in text for text in answers.values())  # the task's MCP server was called
    assert (world.root / "x.txt").read_text() == "x"  # yolo inside the container: nothing asks
    flags = GeminiTuiAgent(logs_dir=world.logs, approval_mode="plan", sandbox=True).build_cli_flags()
    assert flags == "--approval-mode plan --sandbox"
    # no key: Harbor's error patterns name it an authentication failure, not a crash
    from harbor.agents.installed.base import AgentAuthenticationError

    world.environment.env["GEMINI_API_KEY"] = ""
    keyless = GeminiTuiAgent(logs_dir=world.logs, model_name="gemini/gemini-2.5-pro", skip_model_parsing=True,
                             extra_env={"GEMINI_API_KEY": ""})
    with pytest.raises(AgentAuthenticationError):
        await keyless.run("hi", world.environment, AgentContext())  # type: ignore[arg-type]
