"""Hooks side by side with Gemini CLI 0.61 (from npm): the scenarios of its hook integration tests (block a tool,
exit code 2, allow, modify input, stop, before-model block and synthetic answer, after-agent retry, session
start and before-agent context, after-tool context), the same hook commands, the same scripted model replies
on the fake server; the model must get the same function responses and contexts, the same files must result."""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import warm_start
from tests.fakes.gemini_server import FakeGeminiServer, Reply, call, reply, text
from tests.fakes.node_clients import NODE_ENVIRONMENT, gemini_cli, node


def hook(script: str) -> str:
    return script


@dataclass
class Scenario:
    event: str
    script: str  # the hook's JavaScript (node runs it)
    replies: list[Reply]
    matcher: str = ""
    prompt: str = "Create a file called test.txt with content \"Hello World\""
    extra: dict[str, Any] = field(default_factory=dict)


WRITE = [reply(call("write_file", file_path="test.txt", content="Hello World")), reply(text("Done."))]
SCENARIOS = {
    "block-tool": Scenario("BeforeTool", "console.log(JSON.stringify({decision: 'block', reason: "
                           "'File writing blocked by security policy'}));", WRITE, "write_file"),
    "exit-2": Scenario("BeforeTool", "process.stderr.write('Blocked by exit code 2'); process.exit(2);", WRITE,
                       "write_file"),
    "allow-tool": Scenario("BeforeTool", "console.log(JSON.stringify({decision: 'allow', reason: 'ok'}));", WRITE,
                           "write_file"),
    "modify-input": Scenario("BeforeTool", "process.stdout.write(JSON.stringify({decision: 'allow', "
                             "hookSpecificOutput: {hookEventName: 'BeforeTool', tool_input: {file_path: "
                             "'modified.txt', content: 'modified content'}}}));", WRITE, "write_file"),
    "after-tool-context": Scenario("AfterTool", "console.log(JSON.stringify({hookSpecificOutput: {hookEventName: "
                                   "'AfterTool', additionalContext: 'Security scan: File content appears safe'}}));",
                                   WRITE, "write_file"),
    "before-model-deny": Scenario("BeforeModel", "console.log(JSON.stringify({decision: 'deny', reason: "
                                  "'Model execution blocked by security policy'}));", [reply(text("never"))]),
    "before-model-answer": Scenario("BeforeModel", "console.log(JSON.stringify({hookSpecificOutput: {hookEventName: "
                                    "'BeforeModel', llm_response: {candidates: [{content: {role: 'model', parts: "
                                    "['The hook answered.']}, finishReason: 'STOP'}]}}}));", [reply(text("never"))]),
    "before-model-synthetic": Scenario("BeforeModel", "console.log(JSON.stringify({decision: 'block', reason: 'no', "
                                       "hookSpecificOutput: {hookEventName: 'BeforeModel', llm_response: {candidates: "
                                       "[{content: {role: 'model', parts: ['Answered by the hook.']}, finishReason: "
                                       "'STOP'}]}}}));", [reply(text("never"))]),
    "before-tool-stop": Scenario("BeforeTool", "console.log(JSON.stringify({continue: false, reason: 'Emergency Stop "
                                 "triggered by hook', hookSpecificOutput: {hookEventName: 'BeforeTool'}}));", WRITE,
                                 "write_file"),
    "before-agent-context": Scenario("BeforeAgent", "console.log(JSON.stringify({hookSpecificOutput: {hookEventName: "
                                     "'BeforeAgent', additionalContext: 'Extra context from the hook.'}}));",
                                     [reply(text("Fine."))]),
    "session-start": Scenario("SessionStart", "console.log(JSON.stringify({hookSpecificOutput: {hookEventName: "
                              "'SessionStart', additionalContext: 'Context from SessionStart.'}}));",
                              [reply(text("Fine."))], "startup"),
    "tool-selection-any": Scenario("BeforeToolSelection", "console.log(JSON.stringify({hookSpecificOutput: "
                                   "{hookEventName: 'BeforeToolSelection', toolConfig: {mode: 'ANY', "
                                   "allowedFunctionNames: ['write_file']}}}));", WRITE),
    "tool-selection-names": Scenario("BeforeToolSelection", "console.log(JSON.stringify({hookSpecificOutput: "
                                     "{hookEventName: 'BeforeToolSelection', toolConfig: {allowedFunctionNames: "
                                     "['write_file', 'read_file']}}}));", WRITE),
    "before-agent-block": Scenario("BeforeAgent", "console.log(JSON.stringify({decision: 'block', reason: "
                                   "'Prompt blocked by policy'}));", [reply(text("never"))]),
    "before-agent-stop": Scenario("BeforeAgent", "console.log(JSON.stringify({continue: false, stopReason: "
                                  "'Stopped by policy'}));", [reply(text("never"))]),
    "before-model-stop": Scenario("BeforeModel", "console.log(JSON.stringify({continue: false, stopReason: "
                                  "'Model stopped by policy', systemMessage: 'The hook stopped the model.'}));",
                                  [reply(text("never"))]),
    "after-agent-retry": Scenario("AfterAgent", "const i = JSON.parse(require('fs').readFileSync(0, 'utf8')); "
                                  "console.log(JSON.stringify(i.stop_hook_active ? {decision: 'allow'} : "
                                  "{decision: 'deny', reason: 'Please say more.'}));",
                                  [reply(text("Short.")), reply(text("Longer answer."))]),
}


WRITTEN = re.compile(r"^Successfully created and wrote to new file: (\S+?)(?:\. Here is the updated code:\n.*?)?"
                     r"(?=\n\n|$)", re.S)


def normal(response: dict[str, Any], root: Path) -> dict[str, Any]:
    """write_file's own success sentence differs (Gemini CLI quotes the content back): the hooks' part is
    compared, the tool's is reduced to the file it names."""
    output = response.get("output")
    if isinstance(output, str):
        output = WRITTEN.sub(lambda m: f"<wrote {Path(m.group(1)).name}>", output.replace(str(root), "<ROOT>"))
        return {**response, "output": output}
    return response


def run(program: list[str], scenario: Scenario, base: Path) -> dict[str, Any]:
    home, root = base / "home", base / "work"
    (home / ".gemini").mkdir(parents=True)
    root.mkdir()
    script = base / "hook.cjs"
    script.write_text(scenario.script)
    group: dict[str, Any] = {"sequential": True, "hooks": [{"type": "command", "command": f'"{node()}" "{script}"',
                                                             "timeout": 10000}]}
    if scenario.matcher:
        group["matcher"] = scenario.matcher
    settings = {"security": {"auth": {"selectedType": "gemini-api-key"}}, "hooksConfig": {"enabled": True},
                "hooks": {scenario.event: [group]}, **scenario.extra}
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GEMINI_CLI_HOME": str(home),
           "GEMINI_API_KEY": "test-key", "GEMINI_CLI_TRUST_WORKSPACE": "true", "NO_COLOR": "1", **NODE_ENVIRONMENT}
    with FakeGeminiServer() as server:
        server.script(*scenario.replies)
        env["GOOGLE_GEMINI_BASE_URL"] = server.base_url
        done = subprocess.run([*program, "-p", scenario.prompt, "-m", "gemini-2.5-flash", "--yolo",
                               "--output-format", "json"], cwd=root, env=env, capture_output=True, text=True,
                              timeout=180)
        requests = [r.body for r in server.requests if "GenerateContent" in r.path or "generateContent" in r.path]
    responses = [{"name": p["functionResponse"]["name"], "response": normal(p["functionResponse"]["response"], root)}
                 for body in requests for c in body.get("contents", [])[-1:] for p in c.get("parts", [])
                 if "functionResponse" in p]
    # Gemini CLI's own <session_context> preamble is not the hooks' business
    user_texts = [[p["text"] for p in body["contents"][-1].get("parts", []) if "text" in p
                   and not p["text"].startswith("<session_context>")] for body in requests]
    try:
        document = json.loads(done.stdout)
    except json.JSONDecodeError:
        document = {}
    answer, warnings = document.get("response"), document.get("warnings")
    files = {p.name: p.read_text() for p in root.iterdir() if p.is_file()}
    tool_config = [body.get("toolConfig", {}).get("functionCallingConfig") for body in requests]
    return {"requests": len(requests), "responses": responses, "user_texts": user_texts, "files": files,
            "answer": answer, "failed": done.returncode != 0, "exit": done.returncode, "tool_config": tool_config,
            "warnings": warnings,
            "log": done.stderr[-1500:]}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_hooks_give_what_gemini_cli_gives(name: str, tmp_path: Path) -> None:
    scenario = SCENARIOS[name]
    theirs = run(gemini_cli(), scenario, tmp_path / "gemini")
    ours = run(warm_start.command({}), scenario, tmp_path / "ours")
    keys = ["requests", "responses", "user_texts", "files", "answer", "failed"]
    if name.startswith(("tool-selection", "before-agent-block")):  # the request's tool config, the exit code
        keys += ["tool_config", "exit"]
    if name.endswith(("-block", "-stop")):  # how the run ends: the exit code and the warnings said
        keys += ["exit"] + ([] if name.startswith("before-tool") else ["warnings"])  # (a difference: docs/hooks.md)
    for key in keys:
        assert ours[key] == theirs[key], (key, ours, theirs)
