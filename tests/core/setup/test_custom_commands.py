"""Custom commands: loading (names, precedence, bad files) and expansion ({{args}}, !{...}, @{...})."""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest

from gemini_tui.core.ground.events import TurnEndReason
from gemini_tui.core.ground.parts import InlineDataPart, TextPart
from gemini_tui.core.setup.custom_commands import (
    CommandError,
    CustomCommand,
    _injections,
    command_name,
    load_custom_commands,
)
from tests.fakes.scripted_model import ScriptedModel, scripted_session, text


def _toml(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    return path


def test_names_and_precedence(tmp_path: Path) -> None:
    ext, user, project = tmp_path / "ext", tmp_path / "user", tmp_path / "project"
    _toml(ext / "deploy.toml", 'prompt = "ext deploy"')
    _toml(user / "deploy.toml", 'prompt = "user deploy"')
    _toml(user / "git/msg.toml", 'prompt = "user msg"\ndescription = "Commit message"')
    _toml(project / "git/msg.toml", 'prompt = "project msg"')
    _toml(project / "a/b/c.toml", 'prompt = "deep"')
    _toml(project / "broken.toml", 'prompt = "unclosed')
    _toml(project / "empty.toml", 'description = "no prompt"')
    commands, notices = load_custom_commands([(ext, "extension x"), (user, "user"), (project, "project")])
    assert {n: c.prompt for n, c in commands.items()} == {"deploy": "user deploy", "git:msg": "project msg",
                                                          "a:b:c": "deep"}
    assert commands["git:msg"].description == "Custom command from msg.toml"
    assert len(notices) == 2 and any("broken.toml" in n for n in notices) and any("empty" in n for n in notices)
    assert command_name(project / "x/y.toml", project) == "x:y"


def test_unbalanced_injection_is_an_error() -> None:
    with pytest.raises(CommandError):
        _injections("!{echo {oops}")
    found = _injections('a !{echo \'{"k": {"v": 1}}\'} b @{x.md}')
    assert [(i.kind, i.body) for i in found] == [("!", 'echo \'{"k": {"v": 1}}\''), ("@", "x.md")]


async def _expanded(root: Path, home: Path, prompt: str, line: str, **kwargs: object) -> str:
    model = ScriptedModel(record=True).add(text("ok"))
    session = scripted_session(root, model, home, approval_mode="yolo", **kwargs)
    session.commands["cmd"] = CustomCommand("cmd", "", prompt, root / "cmd.toml", "project")
    reason = await session.send_command(line)
    assert reason is TurnEndReason.completed
    parts = model.requests[0].contents[-1].parts
    assert all(isinstance(p, TextPart | InlineDataPart) for p in parts)
    return "".join(p.text for p in parts if isinstance(p, TextPart))


async def test_args_raw_or_appended(root: Path, home: Path) -> None:
    assert await _expanded(root, home, "Fix: {{args}}.", '/cmd "Button" is off') == 'Fix: "Button" is off.'
    assert await _expanded(root, home, "Summarize.", "/cmd 1.2.0 added x") == "Summarize.\n\n/cmd 1.2.0 added x"
    assert await _expanded(root, home, "Summarize.", "/cmd") == "Summarize."


async def test_file_injection_reads_through_read_many_files(root: Path, home: Path) -> None:
    (root / "notes.md").write_text("NOTE BODY")
    result = await _expanded(root, home, "Review:\n@{notes.md}\nend", "/cmd")
    assert "NOTE BODY" in result and result.startswith("Review:\n") and result.endswith("end")


async def test_shell_failure_is_reported_in_the_prompt(root: Path, home: Path) -> None:
    result = await _expanded(root, home, "Out:\n!{echo oops >&2; exit 3}", "/cmd")
    assert "oops" in result and "[Shell command exited with code 3]" in result


@pytest.mark.parametrize("seed", range(3))
async def test_args_inside_shell_are_quoted(root: Path, home: Path, seed: int) -> None:
    """Arguments full of shell syntax reach the command as one literal word: no injection."""
    rng = random.Random(seed)
    alphabet = string.ascii_letters + " '\"$`;|&<>(){}*?!\\#~"
    model = ScriptedModel(record=True)
    session = scripted_session(root, model, home, approval_mode="yolo")
    session.commands["echo"] = CustomCommand("echo", "", "[!{printf %s {{args}}}]", root / "e.toml", "user")
    for _ in range(25):
        args = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30))).strip() or "x"
        model.add(text("ok"))
        assert await session.send_command(f"/echo {args}") is TurnEndReason.completed
        sent = model.requests[-1].contents[-1].parts[0]
        assert isinstance(sent, TextPart) and sent.text == f"[{args}]", args
    assert not (root / "pwned").exists()


async def test_refused_command_sends_nothing(root: Path, home: Path) -> None:
    model = ScriptedModel(record=True)
    session = scripted_session(root, model, home, interactive=False)  # headless default mode: commands refused
    session.commands["cmd"] = CustomCommand("cmd", "", "!{touch made}", root / "c.toml", "user")
    assert await session.send_command("/cmd") is TurnEndReason.error
    assert not model.requests and not (root / "made").exists()
    assert await session.send_command("/unknown") is None
