"""Plan mode's rules as data: which of its tools are declared in each mode (Gemini CLI 0.61's sets, seen in its
headless runs and its policies), and where plan mode may write: only a `.md` file directly in the plans folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gemini_tui.core.approvals.plan_folder import PlanError, PlanFolder, offered, plan_tool_rule
from gemini_tui.core.approvals.policy import ApprovalMode, ApprovalPolicy, Verdict
from gemini_tui.core.tooling.needs import CallNeeds

TOOLS = ("enter_plan_mode", "exit_plan_mode", "write_todos", "ask_user")
# (mode, interactive) -> what is declared; headless rows are what Gemini CLI 0.61 sent the fake server
DECLARED = {
    ("default", False): {"enter_plan_mode"},
    ("auto_edit", False): {"enter_plan_mode"},
    ("plan", False): {"exit_plan_mode"},
    ("yolo", False): {"enter_plan_mode", "write_todos"},
    ("default", True): {"enter_plan_mode", "write_todos", "ask_user"},
    ("auto_edit", True): {"enter_plan_mode", "write_todos", "ask_user"},
    ("plan", True): {"exit_plan_mode", "ask_user"},
    ("yolo", True): {"write_todos", "ask_user"},
}


@pytest.mark.parametrize(("mode", "interactive"), list(DECLARED))
def test_declared_per_mode(mode: str, interactive: bool) -> None:
    assert {tool for tool in TOOLS if offered(tool, mode, interactive)} == DECLARED[(mode, interactive)]


@pytest.mark.parametrize(("mode", "interactive"), list(DECLARED))
def test_a_declared_tool_is_never_refused_by_its_rule(mode: str, interactive: bool) -> None:
    for tool in DECLARED[(mode, interactive)]:
        rule = plan_tool_rule(tool, mode, interactive)
        assert rule is not None and rule[0] == ("ask" if interactive and tool != "write_todos" else "allow")


def test_ask_user_headless_is_refused_with_what_to_do_instead() -> None:
    verdict, reason = plan_tool_rule("ask_user", "default", False) or ("", "")
    assert verdict == "deny" and "choose" in reason and "go on" in reason


@pytest.fixture
def plans(tmp_path: Path) -> PlanFolder:
    folder = PlanFolder(lambda: tmp_path / "home" / ".gemini" / "tmp" / "p" / "s1" / "plans")
    folder.ensure()
    return folder


def write(path: Path) -> CallNeeds:
    return CallNeeds(edit=True, writes=(str(path),))


@pytest.mark.parametrize(("where", "interactive", "exists", "verdict"), [
    ("plans/feature.md", True, False, Verdict.allow),  # the first draft: written unasked
    ("plans/feature.md", False, True, Verdict.allow),  # headless: nobody reviews a revision
    ("plans/feature.md", True, True, Verdict.ask),  # a revision: reviewed hunk by hunk
    ("plans/notes.txt", True, False, Verdict.deny),  # only Markdown
    ("plans/deeper/feature.md", True, False, Verdict.deny),  # only directly in the folder
    ("plans/../feature.md", True, False, Verdict.deny),  # no way out of it
    ("root/feature.md", True, False, Verdict.deny),  # the project itself
    ("plans/link.md", True, False, Verdict.deny),  # a link leading out
])
def test_plan_mode_writes_only_the_plan(plans: PlanFolder, tmp_path: Path, where: str, interactive: bool,
                                        exists: bool, verdict: Verdict) -> None:
    (tmp_path / "root").mkdir()
    os.symlink(tmp_path / "root" / "outside.md", plans.path / "link.md")
    path = Path(str(tmp_path / where).replace(str(tmp_path / "plans"), str(plans.path)))
    if exists:
        path.write_text("# Plan\n")
    policy = ApprovalPolicy(mode=ApprovalMode.plan, plans=plans)
    decision = policy.decide("write_file", write(path), interactive=interactive)
    assert decision.verdict is verdict, decision
    if verdict is Verdict.deny:
        assert str(plans.path) in decision.reason  # where the plan goes instead


@pytest.mark.parametrize(("name", "ok"), [
    ("feature.md", True), ("  feature.md ", True), ("feature.txt", False), ("../feature.md", False),
    ("a/feature.md", False), ("", False), ("/etc/passwd.md", False),
])
def test_exit_plan_mode_names_a_plan_in_the_folder(plans: PlanFolder, name: str, ok: bool) -> None:
    if ok:
        assert plans.resolve(name) == plans.path / name.strip()
    else:
        with pytest.raises(PlanError):
            plans.resolve(name)
