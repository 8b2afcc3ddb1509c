"""MCP beyond tools, on a local server over stdio and streamable HTTP: list_changed, prompts as commands,
resources as @server:uri, progress on the call, roots as the workspace directories."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.cli.assemble import build_session
from gemini_tui.core.ground.events import ToolOutputChunk, TurnEndReason
from gemini_tui.core.mcp.prompts import PromptArgumentError, parse_arguments
from tests.fakes import warm_start
from tests.fakes.scripted_model import ScriptedModel, call, scripted_session, text

SERVER = Path(__file__).resolve().parents[2] / "fakes" / "mcp_everything.py"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(params=["stdio", "http"])
def server_config(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    if request.param == "stdio":
        yield {**warm_start.server_entry(SERVER), "trust": True}
        return
    port = _free_port()
    process = subprocess.Popen([*warm_start.server_command(SERVER), "http", str(port)], env=warm_start.server_env(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield {"url": f"http://127.0.0.1:{port}/mcp", "type": "http", "trust": True}
    finally:
        process.terminate()
        process.wait(10)


def _session(root: Path, home: Path, config: dict[str, Any], model: ScriptedModel) -> Any:
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini/settings.json").write_text(json.dumps({"mcpServers": {"ev": config}}))
    return scripted_session(root, model, home, approval_mode="yolo")


def _user_text(request: Any) -> str:
    return "".join(getattr(p, "text", "") for p in request.contents[-1].parts)


async def test_list_changed_prompts_resources_progress_roots(root: Path, home: Path, tmp_path: Path,
                                                             server_config: dict[str, Any]) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    model = ScriptedModel(record=True)
    session = _session(root, home, server_config, model)
    outputs: list[str] = []
    publish = session.bus.publish

    def spy(event: object) -> None:
        if isinstance(event, ToolOutputChunk):
            outputs.append(event.chunk)
        publish(event)

    session.bus.publish = spy  # type: ignore[method-assign]
    try:
        await session.start(30)
        assert "ev:review" in session.commands  # a prompt is a command
        # prompts: arguments by name and in order; the server's messages are the prompt
        model.add(text("reviewed"))
        assert await session.send_command("/ev:review file=app.py focus=style") is TurnEndReason.completed
        assert _user_text(model.requests[-1]) == "Please review app.py, looking for style."
        model.add(text("ok"))
        assert await session.send_command('/ev:review "main.py"') is TurnEndReason.completed
        assert _user_text(model.requests[-1]) == "Please review main.py, looking for bugs."
        assert await session.send_command("/ev:review") is TurnEndReason.error  # `file` is required
        # resources: @server:uri reads it into the prompt
        model.add(text("noted"))
        await session.send("what is in @ev:notes://today ?")
        assert "RESOURCE-TEXT: buy milk" in _user_text(model.requests[-1])
        # progress: shown as the call's output; roots: the workspace directories, also after /directory add
        session.add_directory(str(extra))
        model.add(call("slow", steps=3)).add(call("show_roots")).add(text("done"))
        await session.send("go")
        assert [o.strip() for o in outputs if o.startswith("progress")] == [
            "progress 1/3: step 1", "progress 2/3: step 2", "progress 3/3: step 3"]
        roots = model.requests[-1].contents[-1].parts[0].response["output"]
        assert roots.split("\n") == [root.as_uri(), extra.resolve().as_uri()]
        # list_changed: a tool and a prompt added by the server while connected are offered at once
        assert "late_tool" not in session.registry
        model.add(call("add_tool")).add(call("late_tool")).add(text("done"))
        await session.send("add it")
        responses = model.requests[-1].contents[-1].parts
        assert responses[0].response == {"output": "late tool ran"}
        assert "ev:late_prompt" in session.commands
        assert "late_tool" in [d["name"] for d in model.requests[-1].tools]
    finally:
        await session.close()


def test_prompt_arguments() -> None:
    declared = [type("A", (), {"name": "file", "required": True})(), type("A", (), {"name": "focus",
                                                                                   "required": False})()]
    assert parse_arguments("file=a.py", declared) == {"file": "a.py"}
    assert parse_arguments('a.py "two words"', declared) == {"file": "a.py", "focus": "two words"}
    assert parse_arguments("focus=x a.py", declared) == {"focus": "x", "file": "a.py"}
    for bad in ("", "focus=x", "nope=1 a.py", '"unclosed'):
        with pytest.raises(PromptArgumentError):
            parse_arguments(bad, declared)


def test_headless_prompt_command(root: Path, home: Path, gemini_server: Any) -> None:
    import os

    from tests.fakes.gemini_server import reply
    from tests.fakes.gemini_server import text as reply_text

    (home / ".gemini").mkdir()
    (home / ".gemini/settings.json").write_text(json.dumps({"mcpServers": {"ev": {
        **warm_start.server_entry(SERVER)}}}))
    gemini_server.script(reply(reply_text("Looks fine.")))
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("GEMINI_", "GOOGLE_"))},
           "GEMINI_CLI_HOME": str(home), "GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": gemini_server.base_url}
    done = subprocess.run([*warm_start.command(env, "gemini_tui.cli.main"), "-p", "/ev:review file=x.py"], cwd=root,
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    parts = gemini_server.requests[0].contents[-1]["parts"]
    assert "".join(p.get("text", "") for p in parts) == "Please review x.py, looking for bugs."


_ = build_session  # the wiring under test builds every session above
