"""`gemini-tui -p --trajectory FILE` and `-o atif`: a headless run as an ATIF trajectory, against the fake server.

(Harbor's own pydantic `Trajectory` validates the same file in tests/harbor; here: the steps, their calls, and
that each observation is what the model received.)"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import warm_start
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text
from tests.fakes.long_run import make_workspace, script

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(180)


def headless(root: Path, home: Path, server: FakeGeminiServer, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GEMINI_CLI_HOME": str(home),
           "PYTHONPATH": str(REPO), "LANG": "C.UTF-8", "GEMINI_API_KEY": "test-key",
           "GOOGLE_GEMINI_BASE_URL": server.base_url}
    return subprocess.run([*warm_start.command(env), "-p", "do the work", "--yolo", *args], cwd=root,
                          env=env, input="", capture_output=True, text=True, timeout=150)


def received(server: FakeGeminiServer, request: int) -> dict[str, str]:
    """What the model received for each call, by call id, in the request after its response."""
    return {r["id"]: r["response"].get("output", r["response"].get("error"))
            for r in server.function_responses(request)}


def test_a_twenty_step_run_as_atif(root: Path, home: Path, gemini_server: FakeGeminiServer, tmp_path: Path) -> None:
    make_workspace(root)
    replies = script(root, steps=20)
    gemini_server.script(*replies)
    target = tmp_path / "out" / "trajectory.json"
    out = headless(root, home, gemini_server, "-o", "stream-json", "--trajectory", str(target))
    assert out.returncode == 0, out.stderr
    document = json.loads(target.read_text())
    assert document["schema_version"] == "ATIF-v1.8"
    assert document["agent"] == {"name": "gemini-tui", "version": document["agent"]["version"],
                                 "model_name": "gemini-2.5-pro"}
    steps = document["steps"]
    assert [s["step_id"] for s in steps] == list(range(1, 23))
    assert steps[0]["source"] == "user" and steps[0]["message"] == "do the work"
    agent = steps[1:]
    assert all(s["source"] == "agent" for s in agent) and agent[-1]["message"] == "All done."
    for index, (step, scripted) in enumerate(zip(agent[:-1], replies, strict=False), 1):
        parts = [p for chunk in scripted.chunks for p in chunk["candidates"][0]["content"]["parts"]]
        calls = [p["functionCall"] for p in parts if "functionCall" in p]
        assert [(c["function_name"], c["arguments"]) for c in step["tool_calls"]] == [
            (c["name"], c["args"]) for c in calls], index
        sent = received(gemini_server, index)
        observed = {r["source_call_id"]: r["content"] for r in step["observation"]["results"]}
        assert observed == sent and all(observed.values()), index
        assert step["message"] == "".join(p.get("text", "") for p in parts if not p.get("thought"))
        assert step.get("reasoning_content", "") == "".join(p["text"] for p in parts if p.get("thought"))
        usage = scripted.chunks[-1]["usageMetadata"]
        assert step["metrics"]["prompt_tokens"] == usage["promptTokenCount"]
        assert step["metrics"]["completion_tokens"] == usage["candidatesTokenCount"] + usage["thoughtsTokenCount"]
    failures = [r["content"] for s in agent for r in s.get("observation", {}).get("results", [])
                if "missing-" in r["content"]]
    assert failures and all("not found" in f.lower() for f in failures)
    totals = document["final_metrics"]
    assert totals["total_steps"] == 22
    assert totals["total_prompt_tokens"] == sum(s["metrics"]["prompt_tokens"] for s in agent)
    # the stream-json output went on as usual beside it
    assert json.loads(out.stdout.splitlines()[-1])["status"] == "success"


def test_atif_on_stdout_is_the_same_document(root: Path, home: Path, gemini_server: FakeGeminiServer,
                                             tmp_path: Path) -> None:
    (root / "a.txt").write_text("alpha\n")
    gemini_server.script(reply(text("Reading."), call("read_file", file_path=str(root / "a.txt"))),
                         reply(text("It says alpha.")))
    target = tmp_path / "t.json"
    out = headless(root, home, gemini_server, "-o", "atif", "--trajectory", str(target))
    assert out.returncode == 0, out.stderr
    printed: dict[str, Any] = json.loads(out.stdout)
    assert printed == json.loads(target.read_text())
    [_, first, last] = printed["steps"]
    assert first["observation"]["results"][0]["content"] == received(gemini_server, 1)[
        first["tool_calls"][0]["tool_call_id"]]
    assert "alpha" in first["observation"]["results"][0]["content"] and last["message"] == "It says alpha."


def test_a_failed_run_still_writes_its_steps(root: Path, home: Path, gemini_server: FakeGeminiServer,
                                             tmp_path: Path) -> None:
    from tests.fakes.gemini_server import error_reply

    gemini_server.script(reply(call("list_directory", dir_path=str(root))), error_reply(400, "Bad request here"))
    target = tmp_path / "t.json"
    out = headless(root, home, gemini_server, "--trajectory", str(target))
    assert out.returncode == 1
    document = json.loads(target.read_text())
    assert [s["source"] for s in document["steps"]] == ["user", "agent"]
    assert "Bad request here" in document["extra"]["error"] and document["extra"]["end_reason"] == "error"
