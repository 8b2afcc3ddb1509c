"""Policy files: each [[rule]] read on its own with its line, errors named and the rest applied, an unreadable
deny rule failing closed, the tiers (admin over settings over user), extensions limited, workspace folders not
applied, and /permissions listing each rule with its file and line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gemini_tui.core.approvals import policy_files
from gemini_tui.core.approvals.policy import (
    ApprovalMode,
    ApprovalPolicy,
    ProtectedPaths,
    Verdict,
    policy_from_settings,
)
from gemini_tui.core.approvals.policy_files import (
    ADMIN_TIER,
    EXTENSION_TIER,
    USER_TIER,
    PolicyFolder,
    load_policy_files,
    read_policy_text,
    stable_stringify,
)
from gemini_tui.core.setup.config import load_settings
from gemini_tui.core.shell.grammar import analyze
from gemini_tui.core.tooling.needs import CallNeeds

GOOD = '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git"\ndecision = "allow"\npriority = 100\n'


def shell(policy: ApprovalPolicy, line: str) -> Verdict:
    return policy.decide("run_shell_command", CallNeeds(shell=analyze(line)), args={"command": line}).verdict


def test_each_rule_carries_its_file_and_line() -> None:
    text = "# my rules\n\n" + GOOD + "\n" + GOOD.replace("allow", "deny").replace('"git"', '"rm"')
    rules, notices = read_policy_text(text, "/p/a.toml", USER_TIER)
    assert notices == []
    assert [(r.line, r.decision) for r in rules] == [(3, "allow"), (9, "deny")]
    assert rules[1].describe().startswith("user policy /p/a.toml:9 (")
    assert rules[0].priority == pytest.approx(4.1)


@pytest.mark.parametrize("broken, why", [
    ('toolName = "run_shell_command"\ncommandPrefix = "git\ndecision = "allow"\npriority = 1\n', "not valid TOML"),
    ('toolName = "read_file"\ndecision = "allow"\npriority = 1000\n', "priority must be"),
    ('toolName = "read_file"\ndecision = "maybe"\npriority = 1\n', "decision must be"),
    ('toolName = "read_file"\ndecision = "allow"\npriority = 1\nmodes = ["sometimes"]\n', "modes must be"),
    ('toolName = "read_file"\ncommandPrefix = "x"\ndecision = "allow"\npriority = 1\n', "need toolName"),
    ('toolName = "run_shell_command"\nargsPattern = "(a+)+"\ndecision = "allow"\npriority = 1\n', "unsafe"),
    ('toolName = "run_shell_command"\nargsPattern = "(a"\ndecision = "allow"\npriority = 1\n', "invalid regular"),
])
def test_a_broken_rule_is_named_by_line_and_the_rest_applies(broken: str, why: str) -> None:
    text = GOOD + "\n[[rule]]\n" + broken + "\n" + GOOD.replace('"git"', '"make"')
    rules, notices = read_policy_text(text, "/p/a.toml", USER_TIER)
    named = [n for n in notices if why in n]
    line = 9 if why == "not valid TOML" else 7  # TOML names the line of the fault, the others the table
    assert len(named) == 1 and named[0].startswith(f"/p/a.toml:{line}:"), notices
    rules = [r for r in rules if not r.fail_closed]  # "maybe" may have meant deny: it fails closed too
    assert [r.line for r in rules] == [1, 7 + len(broken.splitlines()) + 2]  # the good rules before and after


@pytest.mark.parametrize("broken, covers", [
    ('toolName = "run_shell_command"\ncommandPrefix = "rm\ndecision = "deny"\npriority = 5\n', "run_shell_command"),
    ('toolName = "write_file"\ndecision = "deny"\npriority = 5000\n', "write_file"),
    ('toolName = "write_file"\ndecision = "dny"\npriority = 5\n', "write_file"),
    ('mcpName = "jira"\ndecision = "deny"\npriority = "high"\n', "mcp_jira_*"),
    ('toolName = [1, 2]\ndecision = "deny"\npriority = 5\n', "*"),
])
def test_an_unreadable_deny_rule_fails_closed(broken: str, covers: str, tmp_path: Path) -> None:
    text = GOOD + "\n[[rule]]\n" + broken
    rules, notices = read_policy_text(text, "/p/a.toml", USER_TIER)
    closed = [r for r in rules if r.fail_closed]
    assert [r.tool for r in closed] == [covers]
    assert closed[0].priority > max(r.priority for r in rules if not r.fail_closed)
    assert any("fails closed" in n and ":7:" in n for n in notices), notices
    policy = ApprovalPolicy(files=policy_files.FilePolicy(rules))
    if covers == "run_shell_command":
        assert shell(policy, "git status") is Verdict.deny  # the readable allow loses to the closed deny


def test_an_unreadable_allow_rule_just_does_not_apply() -> None:
    rules, notices = read_policy_text('[[rule]]\ntoolName = "write_file"\ndecision = "allow"\npriority = 1e3\n',
                                      "/p/a.toml", USER_TIER)
    assert rules == [] and len(notices) == 1


def test_tiers_admin_over_settings_over_user(tmp_path: Path) -> None:
    home = tmp_path / "home"
    admin = tmp_path / "etc"
    for folder, decision in ((home / ".gemini" / "policies", "allow"), (admin, "deny")):
        folder.mkdir(parents=True)
        (folder / "r.toml").write_text(GOOD.replace("allow", decision).replace('"git"', '"git push"'))
    (home / ".gemini" / "settings.json").write_text(json.dumps({"tools": {"exclude": ["run_shell_command(git)"]}}))
    settings = load_settings(tmp_path, home=home, env={})
    user_only = policy_from_settings(settings, tmp_path, files=load_policy_files(
        [PolicyFolder(home / ".gemini" / "policies", USER_TIER)]))
    # the user's allow (4.100) is below tools.exclude (4.4): denied by the setting
    assert "tools.exclude" in user_only.decide("run_shell_command", CallNeeds(shell=analyze("git push")),
                                               args={"command": "git push"}).rule
    both = policy_from_settings(settings, tmp_path, files=load_policy_files(
        [PolicyFolder(admin, ADMIN_TIER), PolicyFolder(home / ".gemini" / "policies", USER_TIER)]))
    decision = both.decide("run_shell_command", CallNeeds(shell=analyze("git push")), args={"command": "git push"})
    assert decision.verdict is Verdict.deny and "admin policy" in decision.rule and ":1 " in decision.rule


def test_a_high_user_rule_outranks_tools_allowed_and_a_low_one_does_not(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({"tools": {"allowed": ["run_shell_command(git)"]}}))
    settings = load_settings(tmp_path, home=home, env={})
    for priority, verdict in ((100, Verdict.allow), (301, Verdict.deny)):
        text = GOOD.replace("allow", "deny").replace('"git"', '"git push"').replace("100", str(priority))
        rules, _ = read_policy_text(text, "/p/a.toml", USER_TIER)
        policy = policy_from_settings(settings, tmp_path, files=policy_files.FilePolicy(rules))
        assert shell(policy, "git push") is verdict, priority


def test_extensions_may_not_allow_or_speak_for_yolo(tmp_path: Path) -> None:
    folder = tmp_path / "policies"
    folder.mkdir()
    (folder / "x.toml").write_text(GOOD + '\n[[rule]]\ntoolName = "write_file"\ndecision = "deny"\npriority = 1\n'
                                   + '\n[[rule]]\ntoolName = "glob"\ndecision = "deny"\npriority = 1\nmodes=["yolo"]\n')
    loaded = load_policy_files([PolicyFolder(folder, EXTENSION_TIER, "extension x")])
    assert [(r.tool, r.tier) for r in loaded.rules] == [("write_file", EXTENSION_TIER)]
    assert any("extension x may not allow" in n for n in loaded.notices)


def test_system_folder_only_when_root_owns_it(tmp_path: Path) -> None:
    folder = tmp_path / "etc"
    folder.mkdir()
    folder.chmod(0o757)
    folders, notices = policy_files.policy_folders(tmp_path / ".gemini", system_dir=folder)
    assert all(f.tier != ADMIN_TIER for f in folders) and "Security warning" in notices[0]
    if os.geteuid() == 0:  # CI runs as root: the same folder, locked down, is read
        folder.chmod(0o755)
        folders, notices = policy_files.policy_folders(tmp_path / ".gemini", system_dir=folder)
        assert folders[0].tier == ADMIN_TIER and notices == []


def test_workspace_policies_are_not_applied_with_a_notice(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    root = tmp_path / "work"
    (root / ".gemini" / "policies").mkdir(parents=True)
    (root / ".gemini" / "policies" / "w.toml").write_text(GOOD.replace("allow", "deny"))
    settings = load_settings(root, home=home, env={}, trust_flag=True)
    loaded = policy_files.load_for_settings(settings, root)
    assert loaded.rules == [] and any("workspace policy files are not applied" in n for n in loaded.notices)


def test_stable_stringify_matches_gemini_cli() -> None:
    assert stable_stringify({"b": 1.0, "a": [True, None, {"y": "é", "x": 2}]}) == (
        '{\0"a":[true,null,{"x":2,"y":"é"}]\0,\0"b":1\0}')


def test_redirection_and_parts(tmp_path: Path) -> None:
    rules, _ = read_policy_text(GOOD + '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "rm"\n'
                                'decision = "deny"\npriority = 1\n', "/p/a.toml", USER_TIER)
    policy = ApprovalPolicy(files=policy_files.FilePolicy(rules))
    assert shell(policy, "git status") is Verdict.allow
    assert shell(policy, "git status > out.txt") is Verdict.ask
    assert shell(policy, "git status && rm -f x") is Verdict.deny
    assert shell(policy, "git status && ls") is Verdict.ask  # ls: no rule here, and the settings ask
    policy.set_mode(ApprovalMode.yolo)
    assert shell(policy, "git log && rm x") is Verdict.deny


# A rule's allowRedirection has the limits of tools.shell.allowRedirection: target spelling -> verdict outside yolo
REDIRECTED = {"out.txt": "allow", "sub/out.txt": "allow", "{outside}/x": "ask", "../x": "ask", "~/.bashrc": "ask",
              ".gemini/settings.json": "ask", "GEMINI.md": "ask", ".git/config": "ask", "$(date)": "ask",
              "$HOME/x": "ask", "/dev/null": "allow"}


@pytest.mark.parametrize("mode", [ApprovalMode.default, ApprovalMode.auto_edit, ApprovalMode.yolo])
@pytest.mark.parametrize("operator", [">", ">>", "&>", "2>"])
def test_a_policy_files_allow_redirection_stays_inside_the_roots(tmp_path: Path, mode: ApprovalMode,
                                                                operator: str) -> None:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    rules, _ = read_policy_text(GOOD.replace("priority = 100\n", "priority = 100\nallowRedirection = true\n"),
                                "/p/a.toml", USER_TIER)
    policy = ApprovalPolicy(files=policy_files.FilePolicy(rules), protected=ProtectedPaths(root, tmp_path / "gh"))
    policy.set_mode(mode)
    for target, verdict in REDIRECTED.items():
        line = f"git status {operator} {target.replace('{outside}', str(tmp_path / 'elsewhere'))}"
        decision = policy.decide("run_shell_command", CallNeeds(shell=analyze(line), cwd=str(root)),
                                 args={"command": line})
        expected = "allow" if mode is ApprovalMode.yolo else verdict
        assert decision.verdict.value == expected, (line, decision)
