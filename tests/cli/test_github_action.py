"""The GitHub Action's run step (github_action/run.py, as action.yml calls it), run here with the fake Gemini server
and a stand-in `gh` that reports the actor's permission: outputs, the key kept from the agent's commands, and no
run at all for an actor who cannot write."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

REPO = Path(__file__).resolve().parents[2]
SECRET = "AIza-secret-key-never-in-a-command"
pytestmark = pytest.mark.timeout(180)


def run_action(tmp_path: Path, server: FakeGeminiServer, permission: str, **inputs: str) -> tuple[int, str]:
    tools = tmp_path / "bin"
    tools.mkdir(exist_ok=True)
    gh = tools / "gh"
    gh.write_text(f"#!/bin/sh\necho {permission}\n")
    gh.chmod(gh.stat().st_mode | stat.S_IEXEC)
    workspace, output = tmp_path / "repo", tmp_path / "github_output"
    workspace.mkdir(exist_ok=True)
    env = {"PATH": f"{tools}:{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
           "LANG": "C.UTF-8", "PYTHONPATH": str(REPO), "GITHUB_ACTOR": "someone", "GITHUB_REPOSITORY": "o/r",
           "GITHUB_WORKSPACE": str(workspace), "GITHUB_OUTPUT": str(output), "RUNNER_TEMP": str(tmp_path),
           "GH_TOKEN": "ghs-token-never-passed", "GOOGLE_GEMINI_BASE_URL": server.base_url,
           "INPUT_GEMINI_API_KEY": SECRET, **{f"INPUT_{k.upper()}": v for k, v in inputs.items()}}
    done = subprocess.run([sys.executable, str(REPO / "github_action" / "run.py")], env=env, capture_output=True,
                          text=True, timeout=150)
    return done.returncode, output.read_text() if output.exists() else ""


def outputs(text_: str) -> dict[str, str]:
    found: dict[str, str] = {}
    lines = iter(text_.splitlines())
    for line in lines:
        name, delimiter = line.split("<<", 1)
        found[name] = "\n".join(iter(lambda: next(lines), delimiter))
    return found


def test_a_run_gives_the_answer_and_the_trajectory_and_keeps_secrets_from_commands(
        tmp_path: Path, gemini_server: FakeGeminiServer) -> None:
    gemini_server.script(reply(call("run_shell_command", command="env; echo listed")), reply(text("The answer.")))
    code, written = run_action(tmp_path, gemini_server, "write", prompt="show the environment",
                               approval_mode="yolo", settings=json.dumps({"model": {"name": "gemini-2.5-flash"}}))
    assert code == 0
    found = outputs(written)
    assert found["answer"] == "The answer."
    trajectory = json.loads(Path(found["trajectory"]).read_text())
    assert trajectory["schema_version"].startswith("ATIF-") and trajectory["agent"]["model_name"] == "gemini-2.5-flash"
    [response] = gemini_server.function_responses(1)
    seen = response["response"]["output"]
    assert "listed" in seen  # the command ran, in the sandbox's minimal environment
    assert SECRET not in seen and "ghs-token-never-passed" not in seen and "GEMINI_API_KEY" not in seen
    assert "ghs-token-never-passed" not in json.dumps([r.body for r in gemini_server.requests])


@pytest.mark.parametrize("permission", ["read", "triage", "none", ""])
def test_an_actor_without_write_access_runs_nothing(tmp_path: Path, gemini_server: FakeGeminiServer,
                                                    permission: str) -> None:
    code, written = run_action(tmp_path, gemini_server, permission, prompt="do it")
    assert code != 0 and written == "" and gemini_server.requests == []


def test_the_prompt_file_and_bad_inputs(tmp_path: Path, gemini_server: FakeGeminiServer) -> None:
    (tmp_path / "prompt.md").write_text("from the file")
    gemini_server.script(reply(text("ok")))
    code, _ = run_action(tmp_path, gemini_server, "admin", prompt_file=str(tmp_path / "prompt.md"))
    assert code == 0 and gemini_server.requests[0].contents[0]["parts"][0]["text"] == "from the file"
    for bad in ({"prompt": ""}, {"prompt": "x", "settings": "[1]"}, {"prompt": "x", "approval_mode": "always"}):
        assert run_action(tmp_path, gemini_server, "write", **bad)[0] != 0
    assert len(gemini_server.requests) == 1
