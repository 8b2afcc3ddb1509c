"""Gemini CLI's BeforeTool / AfterTool command hooks through the real Session: JSON decisions, exit code 2,
what the model is told, and which hook settings are reported at start."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.core.approvals.policy import ApprovalMode
from gemini_tui.core.setup.config import load_settings
from tests.core.approvals.test_policy import settings, turn
from tests.fakes.scripted_model import call


def hook_script(home: Path, name: str, body: str) -> str:
    """An executable hook; it records the event it got on stdin next to itself."""
    path = home / name
    path.write_text(f"#!/bin/sh\ncat > {path}.stdin\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def hooks(event: str, command: str, matcher: str = "run_shell_command") -> dict[str, Any]:
    return {"hooks": {event: [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]}}


async def test_before_tool_deny_stops_the_call_and_tells_the_model_why(root: Path, home: Path) -> None:
    script = hook_script(home, "deny.sh", """echo '{"decision": "deny", "reason": "no touching today"}'""")
    settings(home, hooks("BeforeTool", script))
    responses, _ = await turn(root, home, [call("run_shell_command", command="touch MARK"),
                                           call("list_directory", dir_path=str(root))], ApprovalMode.yolo)
    assert responses[0]["error"] == "Tool execution blocked: no touching today"  # as Gemini CLI words it
    assert not (root / "MARK").exists()
    assert "error" not in responses[1]  # the matcher names the shell only
    event = json.loads(Path(script + ".stdin").read_text())
    assert event["hook_event_name"] == "BeforeTool" and event["tool_name"] == "run_shell_command"
    assert event["tool_input"] == {"command": "touch MARK"} and event["cwd"] == str(root)


async def test_exit_code_2_denies_with_stderr_as_the_reason(root: Path, home: Path) -> None:
    script = hook_script(home, "block.sh", "echo 'blocked by policy script' >&2; exit 2")
    settings(home, hooks("BeforeTool", script, matcher="write_file|run_shell_.*"))
    responses, _ = await turn(root, home, [call("write_file", file_path=str(root / "a.txt"), content="x")],
                              ApprovalMode.yolo)
    assert "blocked by policy script" in responses[0]["error"]
    assert not (root / "a.txt").exists()


async def test_ask_makes_an_allowed_call_ask_and_allow_lets_a_plain_ask_run(root: Path, home: Path) -> None:
    ask = hook_script(home, "ask.sh", """echo '{"decision": "ask", "reason": "check this one"}'""")
    settings(home, {"tools": {"allowed": ["run_shell_command(touch)"]}, **hooks("BeforeTool", ask)})
    responses, _ = await turn(root, home, [call("run_shell_command", command="touch MARK")])
    assert "check this one" in responses[0]["error"] and not (root / "MARK").exists()
    allow = hook_script(home, "allow.sh", """echo '{"decision": "allow"}'""")
    settings(home, hooks("BeforeTool", allow))
    responses, _ = await turn(root, home, [call("run_shell_command", command="touch OK"),
                                           call("run_shell_command", command="eval touch MARK2")])
    assert "error" not in responses[0] and (root / "OK").exists()
    assert "opaque command: eval" in responses[1]["error"]  # an allow never waves an opaque line through
    assert not (root / "MARK2").exists()


async def test_after_tool_deny_replaces_what_the_model_sees(root: Path, home: Path) -> None:
    script = hook_script(home, "after.sh", """echo '{"decision": "deny", "reason": "secret output"}'""")
    settings(home, hooks("AfterTool", script))
    responses, _ = await turn(root, home, [call("run_shell_command", command="echo TOPSECRET")], ApprovalMode.yolo)
    text = json.dumps(responses[0])
    assert "TOPSECRET" not in text and "secret output" in text
    event = json.loads(Path(script + ".stdin").read_text())
    assert "TOPSECRET" in event["tool_response"]["llmContent"]


def test_unknown_hook_events_and_quiet_sections(root: Path, home: Path) -> None:
    settings(home, {
        "hooks": {"enabled": True, "BeforeTool": [], "SessionStart": [{"hooks": []}], "BeforeModel": [],
                  "AfterLunch": [], "Frobnicate": []},
        "general": {"vimMode": True}, "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
        "ui": {"theme": "Dracula"}, "fancyKey": 1,
    })
    notices = "\n".join(load_settings(root, home=home, env={}).notices)
    listed = notices.split("unknown hook events ignored: ")[1].split("\n")[0]
    assert listed == "AfterLunch, Frobnicate."  # every Gemini CLI event runs
    ignored = [line for line in notices.splitlines() if "ignored settings" in line]
    assert len(ignored) == 1 and ignored[0].endswith("ignored settings gemini-tui does not use: fancyKey.")


@pytest.mark.parametrize("trusted", [True, False])
async def test_workspace_hooks_run_only_in_a_trusted_folder(root: Path, home: Path, trusted: bool,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from gemini_tui.core.approvals.trust import TRUST_ENV

    if not trusted:
        monkeypatch.delenv(TRUST_ENV, raising=False)
    script = hook_script(home, "deny.sh", """echo '{"decision": "deny", "reason": "the project says no"}'""")
    (root / ".gemini").mkdir()
    (root / ".gemini" / "settings.json").write_text(json.dumps(hooks("BeforeTool", script)))
    responses, session = await turn(root, home, [call("run_shell_command", command="touch RAN")], ApprovalMode.yolo)
    if trusted:
        assert "the project says no" in responses[0]["error"] and not (root / "RAN").exists()
    else:  # a cloned repository cannot make gemini-tui run its programs: the hooks are withheld, and said so
        assert "error" not in responses[0] and (root / "RAN").exists()
        assert any("not trusted" in n.message and "hooks" in n.message for n in session.notices)
