"""`gemini-tui -p` wired end to end: an MCP server and a discovery command from settings.json, their tools
offered in the first model request and called through the real google-genai client and the fake Gemini server."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from tests.fakes import warm_start
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

REPO = Path(__file__).resolve().parents[3]
FAKES = REPO / "tests" / "fakes"


def test_headless_run_uses_mcp_and_discovered_tools(tmp_path: Path) -> None:
    root, home = tmp_path / "root", tmp_path / "home"
    (root / ".gemini").mkdir(parents=True)
    home.mkdir()
    script = f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKES / 'discovery_tool.py'))}"
    settings = {
        "mcpServers": {"fake": {**warm_start.server_entry(FAKES / "mcp_server.py", env={"LANG": "C.UTF-8"}),
                                "includeTools": ["echo"]}},
        "tools": {"discoveryCommand": f"{script} discover ok", "callCommand": f"{script} call"},
    }
    (root / ".gemini" / "settings.json").write_text(json.dumps(settings))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GEMINI_CLI_HOME": str(home),
           "PYTHONPATH": str(REPO), "LANG": "C.UTF-8"}
    with FakeGeminiServer() as server:
        server.script(reply(call("echo", text="from gemini"), call("add", a=20, b=22)), reply(text("Both done.")))
        env |= {"GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": server.base_url}
        done = subprocess.run([*warm_start.command(env), "-p", "use the tools", "--yolo", "--trust"],
                              cwd=root,
                              env=env, capture_output=True, text=True, timeout=90)
        assert done.returncode == 0, done.stderr
        first = server.requests[0].function_names()
        assert "echo" in first and "add" in first and "shout" in first and "picture" not in first
        responses = json.dumps(server.function_responses(1))
    assert "echo: from gemini" in responses
    assert "42" in responses
    assert "Both done." in done.stdout
    assert "fake MCP server starting" not in done.stderr + done.stdout  # the server's stderr went to its log


def test_headless_run_says_which_mcp_servers_failed(tmp_path: Path) -> None:
    root, home = tmp_path / "root", tmp_path / "home"
    (root / ".gemini").mkdir(parents=True)
    home.mkdir()
    settings = {"mcpServers": {"broken": {"command": str(tmp_path / "no-such-server")}}}
    (root / ".gemini" / "settings.json").write_text(json.dumps(settings))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GEMINI_CLI_HOME": str(home),
           "PYTHONPATH": str(REPO), "LANG": "C.UTF-8"}
    with FakeGeminiServer() as server:
        server.script(reply(text("Fine without it.")))
        env |= {"GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": server.base_url}
        done = subprocess.run([*warm_start.command(env), "-p", "hi", "--trust"], cwd=root, env=env,
                              capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Fine without it.\n"
    assert "MCP server broken is not available" in done.stderr
