"""Hook answers as `gemini-tui -p` applies them, through the real google-genai client and the fake Gemini server:
each BeforeToolSelection toolConfig variant becomes the next request's functionCallingConfig and declared set;
AfterModel fires for every response (a call-only one too) with the finish reason and usage on the last, and
a hook acting on the final response replaces it; a blocked prompt is said in every output format and exits 0
(as Gemini CLI 0.61), and so does a hook's stop from every event; a hook that times out is one warning with one
prefix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import warm_start
from tests.fakes.gemini_server import DEFAULT_USAGE, FakeGeminiServer, Reply, call, reply, text

REPO = Path(__file__).resolve().parents[2]
RECORD = ("import json, sys; d = json.load(sys.stdin); open(sys.argv[1], 'a').write(json.dumps(d) + '\\n'); "
          "print(sys.argv[2])")


def run(tmp_path: Path, event: str, answer: Any, replies: list[Reply], fmt: str = "text",
        timeout_ms: int = 10000, script: str = RECORD) -> tuple[subprocess.CompletedProcess[str], FakeGeminiServer,
                                                                list[dict[str, Any]]]:
    home, root = tmp_path / "home", tmp_path / "root"
    (home / ".gemini").mkdir(parents=True)
    root.mkdir()
    hook = tmp_path / "hook.py"
    hook.write_text(script)
    log = tmp_path / "hook.log"
    command = f"{sys.executable} {hook} {log} '{json.dumps(answer)}'"
    settings = {"hooks": {event: [{"hooks": [{"type": "command", "command": command, "timeout": timeout_ms}]}]}}
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GEMINI_CLI_HOME": str(home),
           "PYTHONPATH": str(REPO), "LANG": "C.UTF-8", "GEMINI_API_KEY": "test-key"}
    with FakeGeminiServer() as server:
        server.script(*replies)
        env["GOOGLE_GEMINI_BASE_URL"] = server.base_url
        done = subprocess.run([*warm_start.command(env), "-p", "go", "--yolo", "--trust",
                               "--output-format", fmt], cwd=root, env=env, capture_output=True, text=True,
                              timeout=120)
    seen = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return done, server, seen


# toolConfig -> (functionCallingConfig sent, declared names: None = every tool)
SELECTIONS: dict[str, tuple[dict[str, Any] | None, dict[str, Any] | None, list[str] | None]] = {
    "any with names": ({"mode": "ANY", "allowedFunctionNames": ["read_file"]},
                       {"mode": "ANY", "allowedFunctionNames": ["read_file"]}, ["read_file"]),
    "names only": ({"allowedFunctionNames": ["read_file", "glob"]},
                   {"mode": "AUTO", "allowedFunctionNames": ["glob", "read_file"]}, ["read_file", "glob"]),
    "none": ({"mode": "NONE"}, {"mode": "NONE"}, None),
    "any alone": ({"mode": "ANY"}, {"mode": "ANY"}, None),
    "no toolConfig": (None, None, None),
}


@pytest.mark.parametrize("case", list(SELECTIONS))
def test_before_tool_selection_becomes_the_requests_tool_config(case: str, tmp_path: Path) -> None:
    given, sent, declared = SELECTIONS[case]
    answer = {"hookSpecificOutput": {"hookEventName": "BeforeToolSelection", "toolConfig": given}} if given else {}
    done, server, seen = run(tmp_path, "BeforeToolSelection", answer, [reply(text("Fine."))])
    assert done.returncode == 0, done.stderr
    body = server.requests[0].body
    assert body.get("toolConfig", {}).get("functionCallingConfig") == sent, body.get("toolConfig")
    names = server.requests[0].function_names()
    assert (sorted(names) == sorted(declared)) if declared is not None else "run_shell_command" in names
    assert [e["hook_event_name"] for e in seen] == ["BeforeToolSelection"]


def test_after_model_fires_for_every_response_with_finish_and_usage(tmp_path: Path) -> None:
    replies = [reply(call("list_directory", dir_path=".")), reply(text("Two "), text("parts."))]
    done, _, seen = run(tmp_path, "AfterModel", {}, replies)
    assert done.returncode == 0, done.stderr
    responses = [e["llm_response"] for e in seen]
    finals = [r for r in responses if r["candidates"][0].get("finishReason")]
    # the call-only response and the text answer each end once, with the finish reason and the usage
    assert [r["candidates"][0]["finishReason"] for r in finals] == ["STOP", "STOP"]
    assert finals[0]["candidates"][0]["content"]["parts"] == []
    usage = {k: DEFAULT_USAGE[k] for k in ("promptTokenCount", "candidatesTokenCount", "totalTokenCount")}
    assert all(r["usageMetadata"] == usage for r in finals)
    assert finals[1]["candidates"][0]["content"]["parts"] == ["parts."] and finals[1]["text"] == "parts."
    texts = [r for r in responses if r not in finals]
    assert [r["candidates"][0]["content"]["parts"] for r in texts] == [["Two "]]
    assert all("usageMetadata" not in r for r in texts)


ON_FINAL = ("import json, sys; d = json.load(sys.stdin); c = d['llm_response']['candidates'][0]; "
            "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'AfterModel', 'llm_response': {"
            "'candidates': [{'content': {'role': 'model', 'parts': ['[redacted]']}, 'finishReason': 'STOP'}]}}} "
            "if c.get('finishReason') else {}))")


def test_a_hook_acting_on_the_final_response_replaces_it(tmp_path: Path) -> None:
    done, _, _ = run(tmp_path, "AfterModel", {}, [reply(text("Keep this. "), text("Secret end."))],
                     script=ON_FINAL)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Keep this. [redacted]"


BLOCK = {"decision": "block", "reason": "Prompt blocked by policy"}
SAID = "Agent execution blocked: Prompt blocked by policy"


@pytest.mark.parametrize("fmt", ["text", "json", "stream-json"])
def test_a_blocked_prompt_is_said_in_each_format_and_exits_0(fmt: str, tmp_path: Path) -> None:
    done, server, _ = run(tmp_path, "BeforeAgent", BLOCK, [reply(text("never"))], fmt)
    assert done.returncode == 0, done.stderr  # Gemini CLI 0.61 exits 0: the run did what it was told
    assert not [r for r in server.requests if "GenerateContent" in r.path]  # the model was never asked
    if fmt == "text":
        assert f"Warning: {SAID}" in done.stderr and done.stdout == ""
    elif fmt == "json":
        document = json.loads(done.stdout)
        assert document["error"] == {"type": "agent_execution_blocked", "message": SAID}
        assert document["warnings"] == [SAID] and document["response"] == ""
    else:
        events = [json.loads(line) for line in done.stdout.splitlines()]
        errors = [e for e in events if e["type"] == "error"]
        assert [(e["severity"], e["message"], e["error_type"]) for e in errors] == [
            ("warning", SAID, "agent_execution_blocked")]
        assert events[-1]["type"] == "result" and events[-1]["error"]["type"] == "agent_execution_blocked"


# event -> the replies the model would give; a stop ends the run wherever it comes, with what was answered so far
STOPPING: dict[str, tuple[list[Reply], str]] = {
    "BeforeAgent": ([reply(text("never"))], ""),
    "AfterAgent": ([reply(text("The answer."))], "The answer."),
    "BeforeModel": ([reply(text("never"))], ""),
    "AfterModel": ([reply(text("never"))], ""),
    "BeforeTool": ([reply(call("list_directory", dir_path=".")), reply(text("never"))], ""),
    "AfterTool": ([reply(call("list_directory", dir_path=".")), reply(text("never"))], ""),
}
SAYS_MESSAGE = ("BeforeAgent", "AfterAgent")  # as Gemini CLI: a model or tool hook's stop says its reason


def stop_cases() -> list[tuple[str, str, bool]]:
    """(event, format, with a systemMessage): every event in every format, a systemMessage on every other case."""
    return [(event, fmt, index % 2 == 1) for index, (event, fmt) in
            enumerate((e, f) for e in STOPPING for f in ("text", "json", "stream-json"))]


@pytest.mark.parametrize(("event", "fmt", "message"), stop_cases())
def test_a_hook_that_stops_the_agent_ends_the_run_as_gemini_cli_does(event: str, fmt: str, message: bool,
                                                                      tmp_path: Path) -> None:
    """`continue: false` from any event: exit 0 with the answer so far; "Agent execution stopped: <the hook's
    systemMessage, else its stopReason>" on stderr (text) or in `warnings` (json); stream-json ends with a
    successful result and no error event."""
    replies, answered = STOPPING[event]
    answer: dict[str, Any] = {"continue": False, "stopReason": "Halted by policy"}
    if message:
        answer["systemMessage"] = "The hook halted it."
    said = "Agent execution stopped: " + ("The hook halted it." if message and event in SAYS_MESSAGE
                                          else "Halted by policy")
    done, _, seen = run(tmp_path, event, answer, replies, fmt)
    assert done.returncode == 0, done.stderr
    assert [e["hook_event_name"] for e in seen][-1] == event
    if fmt == "text":
        assert said in done.stderr.splitlines(), done.stderr
        assert done.stdout.strip() == answered
    elif fmt == "json":
        document = json.loads(done.stdout)
        assert "error" not in document and document["response"] == answered
        assert document["warnings"] == [said]  # (Gemini CLI 0.61 leaves a tool hook's stop out: docs/hooks.md)
    else:
        events = [json.loads(line) for line in done.stdout.splitlines()]
        assert not [e for e in events if e["type"] == "error"], events
        assert events[-1]["type"] == "result" and events[-1]["status"] == "success" and "error" not in events[-1]


def test_a_hook_timeout_is_one_warning_with_one_prefix(tmp_path: Path) -> None:
    done, _, _ = run(tmp_path, "BeforeAgent", {}, [reply(text("Fine."))], timeout_ms=300,
                     script="import time; time.sleep(30)")
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "did not answer" in line]
    assert len(said) == 1 and said[0].startswith("Warning: hook BeforeAgent") and "Warning: Warning" not in said[0]
