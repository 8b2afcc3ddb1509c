"""Agent Skills side by side with Gemini CLI 0.61 (from npm) against the same fake Gemini server: the same skills
reach the system instruction in the same words, `activate_skill` is declared the same, and activating one
answers the model the same way."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

from tests.fakes import warm_start
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text
from tests.fakes.node_clients import NODE_ENVIRONMENT, gemini_cli

MODEL = "gemini-2.5-flash"
BUILTIN = ["skill-creator", "antigravity-support"]  # Gemini CLI's own skills, turned off for the comparison


def skill(folder: Path, name: str, description: str, body: str = "Do the thing.", extra: str = "") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\n\n{body}\n")


def world(base: Path) -> tuple[Path, Path]:
    """A home and a trusted workspace with skills in every place both programs look, including overrides."""
    home, root = base / "home", base / "work"
    skill(home / ".gemini" / "skills" / "pdf-tools", "pdf-tools", "Extract text and tables from PDF files.")
    skill(home / ".gemini" / "skills" / "shadowed", "shadowed", "The user's version.")
    skill(home / ".agents" / "skills" / "agent-alias", "agent-alias", "From the ~/.agents alias: <b>&</b>.")
    skill(root / ".gemini" / "skills" / "shadowed", "shadowed", "The workspace's version wins.")
    skill(root / ".agents" / "skills" / "team-review", "team-review", "Review a PR the team's way.",
          extra="license: MIT\n")
    skill(home / ".gemini" / "skills" / "off-skill", "off-skill", "Disabled in settings.")
    (root / ".gemini" / "skills" / "scripts").mkdir(parents=True)
    (root / ".agents" / "skills" / "team-review" / "scripts").mkdir()
    (root / ".agents" / "skills" / "team-review" / "scripts" / "check.sh").write_text("echo ok\n")
    settings = {"security": {"auth": {"selectedType": "gemini-api-key"}},
                "skills": {"disabled": [*BUILTIN, "off-skill"]}}
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    return home, root


def run(program: list[str], home: Path, root: Path, server: FakeGeminiServer) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GEMINI_CLI_HOME": str(home),
           "GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": server.base_url,
           "GEMINI_CLI_TRUST_WORKSPACE": "true", "NO_COLOR": "1", **NODE_ENVIRONMENT}
    return subprocess.run([*program, "-p", "use the review skill", "-m", MODEL, "--yolo", "--output-format",
                           "json"], cwd=root, env=env, capture_output=True, text=True, timeout=180)


def skills_section(body: dict[str, Any]) -> tuple[str, list[str]]:
    """The section's words, and its <skill> entries sorted (Gemini CLI lists a folder in file-system order)."""
    instruction = "".join(p.get("text", "") for p in body["systemInstruction"]["parts"])
    found = re.search(r"# Available Agent Skills\n.*?</available_skills>", instruction, re.S)
    assert found, instruction[-2000:]
    entries = re.findall(r"  <skill>\n.*?</skill>", found.group(0), re.S)
    words = re.sub(r"  <skill>\n.*?</skill>\n?", "", found.group(0), flags=re.S)
    return words, sorted(entries)


def declaration(body: dict[str, Any]) -> dict[str, Any]:
    [found] = [d for tool in body["tools"] for d in tool.get("functionDeclarations", [])
               if d["name"] == "activate_skill"]
    schema = found.get("parametersJsonSchema") or found.get("parameters")
    prop = schema["properties"]["name"]
    return {"description": re.sub(r"\(Available: [^)]*\)", "(Available: …)", found["description"]),
            "enum": sorted(prop.get("enum") or []), "type": prop["type"].lower(),
            "param_description": prop.get("description"), "required": schema.get("required")}


def side(program: list[str], tmp_path: Path, label: str) -> dict[str, Any]:
    home, root = world(tmp_path / label)
    with FakeGeminiServer() as server:
        server.script(reply(call("activate_skill", name="team-review")), reply(text("Reviewed.")))
        done = run(program, home, root, server)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
        chat = [r for r in server.requests if "streamGenerateContent" in r.path]
        first = chat[0].body
        [response] = server.function_responses(len(server.requests) - 1)
    text_of = response["response"].get("output") or response["response"].get("error") or response["response"]
    words, entries = skills_section(first)
    return {"section": (words, [e.replace(str(tmp_path / label), "<BASE>") for e in entries]),
            "declaration": declaration(first),
            "response": str(text_of).replace(str(tmp_path / label), "<BASE>")}


def test_skills_reach_the_model_as_in_gemini_cli(tmp_path: Path) -> None:
    gemini = side(gemini_cli(), tmp_path, "gemini")
    ours = side(warm_start.command({}), tmp_path, "ours")
    assert ours["section"] == gemini["section"]
    entries = "".join(ours["section"][1])
    assert "<name>shadowed</name>\n    <description>The workspace's version wins." in entries
    assert "off-skill" not in entries and "skill-creator" not in entries and len(ours["section"][1]) == 4
    assert ours["declaration"] == gemini["declaration"]
    assert ours["response"] == gemini["response"]  # the activated skill: body and folder listing
