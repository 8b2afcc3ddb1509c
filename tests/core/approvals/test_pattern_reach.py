"""A policy rule's commandRegex that can never match (Gemini CLI tests it right after `"command":"` in the
call's JSON) is reported when the file is read, with the reason, and its rule is not applied; a pattern that
can match is never condemned. Patterns are generated from anchors x bodies x endings and judged against the
JSON of generated calls."""

from __future__ import annotations

import itertools
import re

import pytest

from gemini_tui.core.approvals.pattern_reach import never_matches
from gemini_tui.core.approvals.policy_files import USER_TIER, read_policy_text, stable_stringify

STARTS = ["", "^", "(?:^)", "a{0}^", "(?:^|;)", r"\^", "(?:x|^)"]
BODIES = ["git status", "git.*", "(?:git|ls)", "[a-z]+", "(?:ls )?git"]
ENDINGS = ["", "$", ".*$", '"', "[^ ]*$", r"\$", "(?:$|x)", "[}]$", r"\W*$"]
COMMANDS = ["git status", "git status -s", "ls", "ls git", "echo $x", "git log; ls", "cat a^b"]
EXTRA = [{}, {"dir_path": "src"}, {"description": "x}", "is_background": False}]
CORPUS = [stable_stringify({"command": command, **extra}) for command in COMMANDS for extra in EXTRA]
DEAD_STARTS = {"^", "(?:^)", "a{0}^"}  # (JavaScript has no \A or \Z)
DEAD_ENDS = {"$"}
PATTERNS = [start + body + end for start, body, end in itertools.product(STARTS, BODIES, ENDINGS)]


def _rule(regex: str, decision: str = "allow") -> str:
    return (f"[[rule]]\ntoolName = \"run_shell_command\"\ncommandRegex = '{regex}'\ndecision = \"{decision}\"\n"
            "priority = 10\n")


def _matches_some_call(regex: str) -> bool:
    pattern = re.compile(f'"command":"{regex}')
    return any(pattern.search(flat) for flat in CORPUS)


@pytest.mark.parametrize(("start", "body", "end"), list(itertools.product(STARTS, BODIES, ENDINGS)))
def test_a_pattern_is_condemned_only_when_no_call_can_match_it(start: str, body: str, end: str) -> None:
    regex = start + body + end
    dead = never_matches(f'"command":"{regex}')
    if _matches_some_call(regex):
        assert not dead, f"{regex!r} matches a call but was reported as never matching"
    # `^` after `"command":"`, or `$` right after a character that cannot be the JSON's closing `}`
    if start in DEAD_STARTS or (end in DEAD_ENDS and body != "git.*"):
        assert dead, f"{regex!r} can never match but was not reported"
        assert not _matches_some_call(regex)


@pytest.mark.parametrize("regex", [p for p in PATTERNS if never_matches(f'"command":"{p}')])
def test_a_dead_command_regex_is_reported_at_load_and_not_applied(regex: str) -> None:
    rules, notices = read_policy_text(_rule(regex), "/p/rules.toml", USER_TIER)
    assert rules == []  # an allow rule that cannot be applied as written is dropped (a deny one fails closed)
    said = " ".join(notices)
    assert "/p/rules.toml:1:" in said and "can never match" in said, notices
    if regex.startswith(tuple(DEAD_STARTS)):
        assert "leave the `^` out" in said
    denied, notices = read_policy_text(_rule(regex, "deny"), "/p/rules.toml", USER_TIER)
    assert [rule.fail_closed for rule in denied] == [True] and "fails closed" in " ".join(notices)


def test_a_live_command_regex_gives_no_notice() -> None:
    for regex in ("git status", "git.*$", "(?:^|;)rm", r"ls\$"):
        rules, notices = read_policy_text(_rule(regex), "/p/rules.toml", USER_TIER)
        assert len(rules) == 1 and notices == [], (regex, notices)


def test_a_dead_alternative_is_said() -> None:
    rules, notices = read_policy_text(_rule("^git|ls"), "/p/rules.toml", USER_TIER)
    assert len(rules) == 1  # `ls` may still match, anywhere in the JSON
    assert any("'^git' can never match" in n and "(?:...)" in n for n in notices), notices
