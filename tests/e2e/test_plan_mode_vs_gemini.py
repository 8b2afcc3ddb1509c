"""Plan mode side by side with Gemini CLI 0.61 (from npm) against the same scripted Gemini server, headless with
`--approval-mode plan`: the same declarations of enter_plan_mode, exit_plan_mode, write_todos and ask_user in each
mode; the plan written only in the plans folder named in the system instruction, a write elsewhere refused;
exit_plan_mode approved unasked, the run going on in yolo with the plan's path in the answer."""

from __future__ import annotations

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
PLAN_TOOLS = ("enter_plan_mode", "exit_plan_mode", "write_todos", "ask_user")
SPELLING = {"parameters_json_schema": "parametersJsonSchema"}
PLAN = "# Plan\n\n1. Write hello.txt saying hi.\n"


def plans_folder(request: RecordedRequest, root: Path) -> Path | None:
    """The plans folder the system instruction names (Gemini CLI names it relative to the project)."""
    instruction = "".join(p.get("text", "") for p in (request.body.get("systemInstruction") or {}).get("parts", []))
    found = re.search(r"`([^`\n]*plans)/?`", instruction)
    return (root / found.group(1)).resolve() if found else None


def scripted(root: Path) -> Any:
    """Answers by step: write the plan where the instruction says, try a write outside, leave plan mode, write
    the file (now allowed), and finish."""
    seen: dict[str, Path] = {}

    def respond(request: RecordedRequest) -> Reply | None:
        if ":streamGenerateContent" not in request.path:
            return None
        step = sum(1 for p in request.contents if p.get("role") == "model")
        folder = plans_folder(request, root)
        if folder is not None:
            seen.setdefault("plans", folder)
        plans = seen.get("plans", root / "missing")
        steps = [
            reply(call("write_file", file_path=str(plans / "feature.md"), content=PLAN)),
            reply(call("write_file", file_path=str(root / "early.txt"), content="too early\n")),
            reply(call("exit_plan_mode", plan_filename="feature.md")),
            reply(call("write_file", file_path=str(root / "hello.txt"), content="hi\n")),
            reply(text("Done.")),
        ]
        return steps[step] if step < len(steps) else reply(text("Done."))

    return respond, seen


def run(program: list[str], base: Path) -> dict[str, Any]:
    home, root = base / "home", base / "work"
    (home / ".gemini").mkdir(parents=True)
    root.mkdir()
    (home / ".gemini" / "settings.json").write_text(json.dumps({"security": {"auth": {"selectedType":
                                                                                      "gemini-api-key"}}}))
    with FakeGeminiServer() as server:
        server.responder, seen = scripted(root)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GEMINI_CLI_HOME": str(home),
               "GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": server.base_url,
               "GEMINI_CLI_TRUST_WORKSPACE": "true", "NO_COLOR": "1", **NODE_ENVIRONMENT}
        done = subprocess.run([*program, "-p", "plan then build", "-m", MODEL, "--approval-mode", "plan",
                               "--output-format", "json"], cwd=root, env=env, capture_output=True, text=True,
                              timeout=300)
        chat = [r for r in server.requests if ":streamGenerateContent" in r.path]
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    responses = [r.function_responses() for r in chat[1:]]
    declared = []
    for request in chat:
        tools = {d["name"]: d for t in request.body.get("tools") or [] for d in t.get("functionDeclarations", [])}
        # google-genai writes the field in the API's snake_case spelling, Gemini CLI in camelCase (both accepted)
        declared.append({name: {SPELLING.get(k, k): v for k, v in tools[name].items()} for name in PLAN_TOOLS
                         if name in tools})
    plans = seen["plans"]
    return {"root": root, "plans": plans, "declared": declared, "responses": responses,
            "answer": json.loads(done.stdout)["response"]}


def outcome(response: dict[str, Any]) -> str:
    body = response["response"]
    return "error" if "error" in body else "ok"


def test_headless_plan_mode_ends_as_gemini_cli_does(tmp_path: Path) -> None:
    gemini = run(gemini_cli(), tmp_path / "gemini")
    ours = run(warm_start.command({}), tmp_path / "ours")
    for side in (gemini, ours):
        root, plans = side["root"], side["plans"]
        assert plans.name == "plans" and ".gemini" in plans.parts and root not in plans.parents
        assert (plans / "feature.md").read_text() == PLAN  # the plan, only in the plans folder
        assert not (root / "early.txt").exists()  # a write elsewhere while planning: refused
        assert (root / "hello.txt").read_text() == "hi\n"  # after leaving plan mode: yolo, unasked
        assert [[outcome(r) for r in step] for step in side["responses"]] == [["ok"], ["error"], ["ok"], ["ok"]]
        [approved] = side["responses"][2]
        said = approved["response"]["output"]
        assert said.startswith("Plan approved. Switching to YOLO mode (all tool calls auto-approved).")
        assert str(plans / "feature.md") in said
        assert side["answer"] == "Done."
    # the same declarations, mode by mode: plan mode (exit only), then yolo (enter and write_todos)
    assert [sorted(d) for d in ours["declared"]] == [sorted(d) for d in gemini["declared"]]
    assert sorted(ours["declared"][0]) == ["exit_plan_mode"]
    assert sorted(ours["declared"][-1]) == ["enter_plan_mode", "write_todos"]
    assert ours["declared"] == gemini["declared"]
