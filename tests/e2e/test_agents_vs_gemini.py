"""Subagents side by side with Gemini CLI 0.61 (from npm) against the same scripted Gemini server, headless: the
same agent files (the user's, a trusted project's acknowledged one, one waiting for acknowledgement, one disabled
in the settings) give the same `invoke_agent` declaration and the same agents with the same descriptions in the
system instruction; the subagent's request carries only its own tools, `complete_task` declared alike, its own
system instruction (its body, none of the session's) and the task as its first message; the session's model
receives one function response, worded alike."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import warm_start
from tests.fakes.gemini_server import FakeGeminiServer, RecordedRequest, Reply, call, reply, text
from tests.fakes.node_clients import NODE_ENVIRONMENT, gemini_cli

pytestmark = pytest.mark.timeout(400)
MODEL = "gemini-2.5-flash"
SPELLING = {"parameters_json_schema": "parametersJsonSchema"}  # google-genai's spelling of the field, and the API's
TASK = "Read notes.txt and say what it says."
RESULT = "notes.txt says hello"


def agent_text(name: str, description: str, body: str, tools: list[str]) -> str:
    return (f"---\nname: {name}\ndescription: {description}\ntools:\n" + "".join(f"  - {t}\n" for t in tools)
            + f"max_turns: 5\n---\n{body}\n")


# where the file is, its name, whether the user acknowledged it (project agents), and whether it is offered
AGENTS: list[tuple[str, str, bool, bool]] = [
    ("user", "doc-reader", True, True),
    ("user", "quiet-one", True, False),  # disabled: agents.overrides.quiet-one.enabled = false
    ("project", "proj-helper", True, True),
    ("project", "proj-unreviewed", False, False),  # headless runs skip a project agent not yet acknowledged
    ("user", "bad-yaml", True, False),  # its front matter is not YAML (an unquoted ": " in the description)
]
DESCRIPTION = {"bad-yaml": "Reads notes: all of them."}
TOOLS = {"doc-reader": ["read_file", "list_directory"]}
BODY = {name: f"You are {name.upper().replace('-', '')}-BODY. Answer from the files you read."
        for _, name, _, _ in AGENTS}
SETTINGS = {"security": {"auth": {"selectedType": "gemini-api-key"}},
            "agents": {"overrides": {"quiet-one": {"enabled": False}}}}


def instruction_of(request: RecordedRequest) -> str:
    return "".join(p.get("text", "") for p in (request.body.get("systemInstruction") or {}).get("parts", []))


def declarations(request: RecordedRequest) -> dict[str, dict[str, Any]]:
    found = {d["name"]: d for t in request.body.get("tools") or [] for d in t.get("functionDeclarations", [])}
    return {name: {SPELLING.get(k, k): v for k, v in declared.items()} for name, declared in found.items()}


def listed_agents(instruction: str) -> list[str]:
    """The `- name -> description` lines of the system instruction's sub-agents section."""
    section = instruction.split("# Available Sub-Agents", 1)[1] if "# Available Sub-Agents" in instruction else ""
    section = re.split(r"\n# ", section, maxsplit=1)[0]
    return re.findall(r"^- [a-z0-9_-]+ -> .*$", section, flags=re.MULTILINE)


def world(base: Path) -> tuple[Path, Path]:
    home, root = base / "home", base / "work"
    (home / ".gemini").mkdir(parents=True)
    root.mkdir()
    (root / "notes.txt").write_text("hello\n")
    (home / ".gemini" / "settings.json").write_text(json.dumps(SETTINGS))
    acknowledged: dict[str, str] = {}
    for where, name, acked, _ in AGENTS:
        folder = (home if where == "user" else root) / ".gemini" / "agents"
        folder.mkdir(parents=True, exist_ok=True)
        description = DESCRIPTION.get(name, f"The {name} agent, which knows {name.split('-')[0]} things.")
        content = agent_text(name, description, BODY[name],
                             TOOLS.get(name, ["glob"]))
        (folder / f"{name}.md").write_text(content)
        if where == "project" and acked:  # as the user's yes is kept: the file's sha256, per project
            acknowledged[name] = hashlib.sha256(content.encode()).hexdigest()
    (home / ".gemini" / "acknowledgments").mkdir()
    (home / ".gemini" / "acknowledgments" / "agents.json").write_text(json.dumps({str(root): acknowledged}))
    return home, root


def responder(root: Path) -> Any:
    """The session's model hands the task to doc-reader, which reads the file and completes; then it answers."""
    steps = {"parent": [reply(call("invoke_agent", agent_name="doc-reader", prompt=TASK)), reply(text("Done."))],
             "doc-reader": [reply(call("read_file", file_path=str(root / "notes.txt"))),
                            reply(call("complete_task", result=RESULT))]}

    def respond(request: RecordedRequest) -> Reply | None:
        if ":streamGenerateContent" not in request.path:
            return None
        who = "doc-reader" if BODY["doc-reader"] in instruction_of(request) else "parent"
        step = sum(1 for c in request.contents if c.get("role") == "model")
        return steps[who][step] if step < len(steps[who]) else reply(text("Done."))

    return respond


def run(program: list[str], base: Path) -> dict[str, Any]:
    home, root = world(base)
    with FakeGeminiServer() as server:
        server.responder = responder(root)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GEMINI_CLI_HOME": str(home),
               "GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": server.base_url,
               "GEMINI_CLI_TRUST_WORKSPACE": "true", "NO_COLOR": "1", **NODE_ENVIRONMENT}
        done = subprocess.run([*program, "-p", "what do the notes say?", "-m", MODEL, "--output-format", "json"],
                              cwd=root, env=env, capture_output=True, text=True, timeout=300)
        chat = [r for r in server.requests if ":streamGenerateContent" in r.path]
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    agent = [r for r in chat if BODY["doc-reader"] in instruction_of(r)]
    parent = [r for r in chat if r not in agent]
    return {"root": root, "parent": parent, "agent": agent, "answer": json.loads(done.stdout)["response"]}


def test_agent_files_give_the_same_requests_as_gemini_cli(tmp_path: Path) -> None:
    gemini = run(gemini_cli(), tmp_path / "gemini")
    ours = run(warm_start.command({}), tmp_path / "ours")
    sides = {"gemini": gemini, "ours": ours}
    for side in sides.values():
        assert len(side["parent"]) == 2 and len(side["agent"]) == 2, side
        assert side["answer"] == "Done."
    # the same invoke_agent, declared alike
    assert declarations(ours["parent"][0])["invoke_agent"] == declarations(gemini["parent"][0])["invoke_agent"]
    # the same agents offered, with the same descriptions, in the same order (cli_help is Gemini CLI's own)
    listed = {name: listed_agents(instruction_of(side["parent"][0])) for name, side in sides.items()}
    assert [line for line in listed["gemini"] if not line.startswith("- cli_help ")] == listed["ours"]
    for _, name, _, offered in AGENTS:
        for side_name, lines in listed.items():
            assert any(line.startswith(f"- {name} -> ") for line in lines) == offered, (side_name, name, lines)
    # the subagent's request: only its tools (and complete_task, declared alike), its own instruction and the task
    for side_name, side in sides.items():
        first = side["agent"][0]
        assert sorted(declarations(first)) == ["complete_task", "list_directory", "read_file"], side_name
        instruction = instruction_of(first)
        assert instruction.startswith(BODY["doc-reader"]), side_name
        assert "# Available Sub-Agents" not in instruction and "invoke_agent" not in instruction, side_name
        assert instruction_of(side["parent"][0])[:300] not in instruction, side_name  # none of the session's own
        assert first.contents == [{"role": "user", "parts": [{"text": TASK}]}], side_name
        assert first.model == MODEL
        # its tool ran, and its answer went back to it, not to the session
        assert [r["name"] for r in side["agent"][1].function_responses()] == ["read_file"], side_name
    assert declarations(ours["agent"][0])["complete_task"] == declarations(gemini["agent"][0])["complete_task"]
    # the session's model receives one response for the call, worded alike
    said = {}
    for side_name, side in sides.items():
        [response] = side["parent"][1].function_responses()
        assert response["name"] == "invoke_agent", side_name
        said[side_name] = response["response"]
    assert said["ours"] == said["gemini"] == {
        "output": f"Subagent 'doc-reader' finished.\nTermination Reason: GOAL\nResult:\n{RESULT}"}
