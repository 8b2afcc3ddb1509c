"""Approvals room: what would let a call run that nobody can be asked about (a headless run), found by trying
each way on a copy of the policy, so a refusal names only the ways that really lift it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from gemini_tui.core.approvals.policy import ApprovalMode, ApprovalPolicy, Decision, Rule, Verdict
from gemini_tui.core.approvals.policy_files import FilePolicy, FileRule
from gemini_tui.core.tooling.needs import CallNeeds


def ways_to_run(policy: ApprovalPolicy, decision: Decision, tool: str, needs: CallNeeds,
                aliases: Iterable[str] = (), requested_by: str = "model", *,
                args: Mapping[str, Any] | None = None, interactive: bool = False) -> list[str]:
    """Each setting, flag or rule change that alone would let this call run unasked, in words a user can act
    on; empty when none does (only a person approving it can)."""
    aliases = list(aliases)
    ways: list[str] = []
    for words, changed in _candidates(policy, decision, tool, needs, aliases, requested_by, args, interactive):
        verdict = changed.decide(tool, needs, aliases, requested_by, args=args, interactive=interactive).verdict
        if verdict is Verdict.allow and words not in ways:
            ways.append(words)
    return ways


def _candidates(policy: ApprovalPolicy, decision: Decision, tool: str, needs: CallNeeds, aliases: list[str],
                requested_by: str, args: Mapping[str, Any] | None,
                interactive: bool) -> Iterable[tuple[str, ApprovalPolicy]]:
    if policy.mode is not ApprovalMode.auto_edit and policy.mode is not ApprovalMode.yolo:
        yield "--approval-mode auto_edit", replace(policy, mode=ApprovalMode.auto_edit)
    if policy.mode is not ApprovalMode.yolo and policy.disable_yolo is None:
        yield "--yolo", replace(policy, mode=ApprovalMode.yolo)
    entries = list(decision.grants) or [tool]
    allowed = [*policy.allowed, *(Rule("tools.allowed", entry) for entry in entries)]
    shown = ", ".join(f'"{entry}"' for entry in entries)
    yield f"tools.allowed [{shown}] in settings.json", replace(policy, allowed=allowed)
    if needs.shell is not None and not policy.allow_redirection:
        yield "tools.shell.allowRedirection in settings.json", replace(policy, allow_redirection=True)
    files = policy.files
    if files is None:
        return
    found = policy.file_match(tool, aliases, needs, args, interactive, requested_by)
    if found is None:
        return
    if found.redirected_under is not None and not found.redirected_under.allow_redirection:
        rule = found.redirected_under
        yield (f"allowRedirection = true in the policy rule at {rule.place}",
               _with_rule(policy, files, rule, replace(rule, allow_redirection=True)))
    if found.rule is not None and found.decision != "allow" and not found.rule.fail_closed:
        rule = found.rule
        yield (f'decision = "allow" in the policy rule at {rule.place} (it decides "{rule.decision}")',
               _with_rule(policy, files, rule, replace(rule, decision="allow")))


def _with_rule(policy: ApprovalPolicy, files: FilePolicy, old: FileRule, new: FileRule) -> ApprovalPolicy:
    rules = [new if rule is old else rule for rule in files.rules]
    return replace(policy, files=FilePolicy(rules, list(files.notices)))
