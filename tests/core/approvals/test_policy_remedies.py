"""A headless refusal names only what would lift it: each way it names is applied as written (a flag, a settings
key, a change to the policy rule it points at) and the same call then runs; and a policy rule's redirection
refusal never names tools.allowed, which does not outrank the rule."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.core.approvals.policy import ApprovalMode
from tests.fakes.scripted_model import ScriptedModel, call, scripted_session, text

ALLOW_ECHO = '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "echo"\ndecision = "allow"\npriority = {p}\n'
ASK_ECHO = '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "echo"\ndecision = "ask_user"\npriority = 500\n'

# name -> (policy file, tools.allowed, approval mode, command)
CASES: dict[str, tuple[str, list[str], ApprovalMode, str]] = {
    "redirect under a high rule": (ALLOW_ECHO.format(p=500), [], ApprovalMode.default, "echo hi > out.txt"),
    "redirect under a high rule, allowed too": (ALLOW_ECHO.format(p=500), ["run_shell_command(echo)"],
                                                ApprovalMode.default, "echo hi > out.txt"),
    "redirect under a low rule": (ALLOW_ECHO.format(p=100), [], ApprovalMode.default, "echo hi > out.txt"),
    "an ask rule": (ASK_ECHO, [], ApprovalMode.default, "echo hi"),
    "an ask rule under yolo": (ASK_ECHO, [], ApprovalMode.yolo, "echo hi"),
    "no rule at all": ("", [], ApprovalMode.default, "echo hi"),
    "no rule, an edit": ("", [], ApprovalMode.default, "WRITE"),
}


def _setup(home: Path, policy: str, allowed: list[str], extra: dict[str, Any] | None = None) -> None:
    (home / ".gemini" / "policies").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "policies" / "rules.toml").write_text(policy)
    settings: dict[str, Any] = {"tools": {"allowed": allowed, **(extra or {})}}
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))


async def _one(root: Path, home: Path, command: str, mode: ApprovalMode) -> dict[str, Any]:
    model = ScriptedModel()
    one = (call("write_file", file_path=str(root / "new.txt"), content="x") if command == "WRITE"
           else call("run_shell_command", command=command))
    model.add(one).add(text("ok"))
    session = scripted_session(root, model, home, approval_mode=mode, interactive=False)
    try:
        await session.send("go")
    finally:
        await session.close()
    user = [c for c in model.requests[-1].contents if c.role == "user"][-1]
    return next(part.response for part in user.parts if hasattr(part, "response"))


def _ways(refusal: str) -> list[str]:
    named = refusal.split("The user can allow it with ", 1)
    if len(named) == 1:
        return []
    text = named[1].rstrip(".")
    return [w.strip() for w in re.split(r", or |, (?=--|tools\.|allowRedirection|decision)", text) if w.strip()]


def _apply(way: str, home: Path, policy: str, allowed: list[str], mode: ApprovalMode) -> tuple[ApprovalMode, bool]:
    """Applies one named way as a user would; returns the mode to run with and whether the way was understood."""
    if way == "--yolo":
        return ApprovalMode.yolo, True
    if way == "--approval-mode auto_edit":
        return ApprovalMode.auto_edit, True
    if match := re.fullmatch(r"tools\.allowed \[(.*)\] in settings\.json", way):
        _setup(home, policy, [*allowed, *json.loads(f"[{match.group(1)}]")])
        return mode, True
    if way == "tools.shell.allowRedirection in settings.json":
        _setup(home, policy, allowed, {"shell": {"allowRedirection": True}})
        return mode, True
    if way.startswith("allowRedirection = true in the policy rule at "):
        _setup(home, policy + "allowRedirection = true\n", allowed)
        return mode, True
    if way.startswith('decision = "allow" in the policy rule at '):
        _setup(home, re.sub(r'decision = "\w+"', 'decision = "allow"', policy), allowed)
        return mode, True
    return mode, False


@pytest.mark.parametrize("case", list(CASES))
async def test_each_way_a_refusal_names_lets_the_call_run(root: Path, home: Path, case: str) -> None:
    policy, allowed, mode, command = CASES[case]
    _setup(home, policy, allowed)
    refusal = (await _one(root, home, command, mode)).get("error", "")
    assert "needs the user's confirmation" in refusal, refusal
    ways = _ways(refusal)
    if "redirect" in case:
        assert not any(w.startswith("tools.allowed") for w in ways) or "low" in case, refusal
        assert any(w.startswith("allowRedirection = true") for w in ways), refusal
    for way in ways:
        _setup(home, policy, allowed)
        run_mode, understood = _apply(way, home, policy, allowed, mode)
        assert understood, f"a way no user could apply: {way!r} in {refusal}"
        for leftover in (root / "out.txt", root / "new.txt"):
            leftover.unlink(missing_ok=True)
        response = await _one(root, home, command, run_mode)
        assert "error" not in response, f"{way!r} did not lift: {response}"
