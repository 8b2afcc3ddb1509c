"""Agent Skills: where they are found (precedence, trust), the agentskills.io checks, the CLI that manages them,
and activate_skill asking consent through the policy before it gives the body and the folder."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from gemini_tui.core.approvals.policy import ApprovalMode
from gemini_tui.core.ground.confirmation import ConfirmationOutcome, Decision
from gemini_tui.core.ground.events import ConfirmationRequested
from gemini_tui.core.ground.model_api import CallChunk, FunctionCall
from gemini_tui.core.setup.config import load_settings
from gemini_tui.core.setup.skills import load_skills, read_skill
from tests.fakes import warm_start
from tests.fakes.scripted_model import ScriptedModel, call, scripted_session, text


def skill(folder: Path, name: str, description: str = "Does things.", extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n{extra}---\nBody of {name}.\n")
    return folder


def test_untrusted_folder_skills_are_not_loaded(tmp_path: Path, untrusted_env: None) -> None:
    home, root = tmp_path / "home", tmp_path / "work"
    skill(home / ".gemini" / "skills" / "mine", "mine")
    skill(root / ".gemini" / "skills" / "theirs", "theirs")
    (home / ".gemini" / "settings.json").write_text("{}")
    settings = load_settings(root, home=home, env={})
    found = load_skills(settings, root)
    assert [s.name for s in found.skills] == ["mine"]
    assert any("untrusted folder" in n for n in found.notices)


@pytest.mark.parametrize("front, problem", [
    ("name: Bad-Name\ndescription: x\n", "must be lowercase"),
    ("name: other\ndescription: x\n", "must match skill name"),
    ("name: a--b\ndescription: x\n", "consecutive hyphens"),
    ("name: ok\ndescription: x\nversion: 2\n", "Unexpected fields"),
])
def test_reference_validator_problems_are_reported(tmp_path: Path, front: str, problem: str) -> None:
    folder = tmp_path / ("ok" if "name: ok" in front else "a--b" if "a--b" in front else "bad-name")
    folder.mkdir()
    (folder / "SKILL.md").write_text(f"---\n{front}---\nbody\n")
    found, why = read_skill(folder / "SKILL.md", "user")
    assert found is not None, why
    assert any(problem in p for p in found.problems), found.problems


def test_no_front_matter_is_not_a_skill(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_text("# just text\n")
    found, why = read_skill(tmp_path / "SKILL.md", "user")
    assert found is None and "front matter" in why


def cli(args: list[str], root: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GEMINI_CLI_HOME": str(home), "HOME": str(home)}
    return subprocess.run([*warm_start.command(env), "skills", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=60)


def test_cli_install_list_disable_enable_uninstall(tmp_path: Path) -> None:
    home, root, source = tmp_path / "home", tmp_path / "work", tmp_path / "src"
    root.mkdir()
    skill(source / "lint-fix", "lint-fix", "Fix lint the house way.")
    subprocess.run(["git", "init", "-q", str(source)], check=True)
    subprocess.run(["git", "-C", str(source), "add", "."], check=True)
    subprocess.run(["git", "-C", str(source), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "s"],
                   check=True)
    done = cli(["install", f"file://{source}", "--consent"], root, home)
    assert done.returncode == 0, done.stderr
    assert (home / ".gemini" / "skills" / "lint-fix" / "SKILL.md").is_file()
    assert "lint-fix [enabled] (user)" in cli(["list"], root, home).stdout
    assert cli(["disable", "lint-fix"], root, home).returncode == 0
    assert json.loads((home / ".gemini" / "settings.json").read_text())["skills"]["disabled"] == ["lint-fix"]
    assert "lint-fix [disabled]" in cli(["list"], root, home).stdout
    assert cli(["enable", "lint-fix"], root, home).returncode == 0
    assert "lint-fix [enabled]" in cli(["list"], root, home).stdout
    assert cli(["uninstall", "lint-fix"], root, home).returncode == 0
    assert not (home / ".gemini" / "skills" / "lint-fix").exists()
    missing = cli(["uninstall", "lint-fix"], root, home)
    assert missing.returncode == 1 and "no skill" in missing.stderr


async def activate(tmp_path: Path, answer: ConfirmationOutcome, settings: dict[str, object] | None = None
                   ) -> tuple[list[ConfirmationRequested], list[dict[str, object]], object]:
    home, root = tmp_path / "home", tmp_path / "work"
    root.mkdir(exist_ok=True)
    folder = skill(home / ".gemini" / "skills" / "deploy", "deploy", "Deploy the app.")
    (folder / "notes.txt").write_text("secret handshake\n")
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings or {}))
    model = ScriptedModel().add([CallChunk(FunctionCall("c1", "activate_skill", {"name": "deploy"}))]).add(
        [call("read_file", file_path=str(folder / "notes.txt"))]).add(text("done"))
    session = scripted_session(root, model, home, approval_mode=ApprovalMode.default, interactive=True)
    asked: list[ConfirmationRequested] = []
    events = session.bus.subscribe()

    async def listen() -> None:
        async for event in events:
            if isinstance(event, ConfirmationRequested):
                asked.append(event)
                event.future.set_result(Decision(answer))

    import asyncio

    listener = asyncio.ensure_future(listen())
    try:
        await session.send("deploy it")
    finally:
        listener.cancel()
        await session.close()
    responses = []
    for request in model.requests[1:]:
        user = [c for c in request.contents if c.role == "user"][-1]
        responses += [part.response for part in user.parts if hasattr(part, "response")]
    return asked, responses, session


async def test_activation_asks_then_gives_the_body_and_the_folder(tmp_path: Path) -> None:
    asked, responses, session = await activate(tmp_path, ConfirmationOutcome.proceed_once)
    assert len(asked) == 1 and "Activate Skill: deploy" in str(asked[0])
    assert str(responses[0]["output"]).startswith('<activated_skill name="deploy">')
    assert "Body of deploy." in json.dumps(responses[0])
    assert "secret handshake" in json.dumps(responses[1])  # its folder became readable
    assert "Available Agent Skills" in session.system_instruction()


async def test_refused_activation_gives_nothing(tmp_path: Path) -> None:
    asked, responses, _ = await activate(tmp_path, ConfirmationOutcome.cancel)
    assert len(asked) >= 1 and "Body of deploy." not in json.dumps(responses)


async def test_a_policy_rule_decides_activation(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".gemini" / "policies").mkdir(parents=True)
    (home / ".gemini" / "policies" / "s.toml").write_text(
        '[[rule]]\ntoolName = "activate_skill"\ndecision = "deny"\npriority = 5\n')
    asked, responses, _ = await activate(tmp_path, ConfirmationOutcome.proceed_once)
    assert not [a for a in asked if "Activate Skill" in str(a)]
    assert "denied by user policy" in json.dumps(responses[0])
