"""Shell chains and allow/deny rules: every command of a chain is checked, deny wins, substitution is never
auto-approved."""

from __future__ import annotations

import pytest

from gemini_tui.tools.shell.rules import (
    ShellRules,
    has_command_substitution,
    root_commands,
    split_commands,
)


@pytest.mark.parametrize(("command", "parts"), [
    ("ls", ["ls"]),
    ("git status && npm test", ["git status", "npm test"]),
    ("a || b", ["a", "b"]),
    ("a; b ;c", ["a", "b", "c"]),
    ("cat x | grep y", ["cat x", "grep y"]),
    ("a |& b", ["a", "b"]),
    ("sleep 1 & echo hi", ["sleep 1", "echo hi"]),
    ("a\nb", ["a", "b"]),
    ("make 2>&1 | tee log", ["make 2>&1", "tee log"]),
    ("cmd &> out.txt", ["cmd &> out.txt"]),
    ("echo 'a && b'", ["echo 'a && b'"]),
    ('echo "a; b" ; ls', ['echo "a; b"', "ls"]),
    (r"echo a\;b", [r"echo a\;b"]),
    ("echo >&2 oops", ["echo >&2 oops"]),
    ("", []),
])
def test_split_commands(command: str, parts: list[str]) -> None:
    assert split_commands(command) == parts


@pytest.mark.parametrize(("command", "roots"), [
    ("git status && npm test", ("git", "npm")),
    ("/usr/bin/git log | head -5", ("git", "head")),
    ("FOO=1 BAR=2 make all", ("make",)),
    ("git a; git b", ("git",)),
    ("(cd sub && ls)", ("cd", "ls")),
])
def test_root_commands(command: str, roots: tuple[str, ...]) -> None:
    assert root_commands(command) == roots


@pytest.mark.parametrize(("command", "expected"), [
    ("echo $(whoami)", True),
    ("echo `whoami`", True),
    ("diff <(ls a) <(ls b)", True),
    ("tee >(cat)", True),
    ('echo "$(id)"', True),
    ("echo '$(id)'", False),
    ("echo '`id`'", False),
    (r"echo \$(id)", False),
    ("echo $HOME", False),
    ('echo "<(x)"', False),
])
def test_command_substitution(command: str, expected: bool) -> None:
    assert has_command_substitution(command) is expected


# (core, exclude, command, may run)
RUN_CASES = [
    (None, [], "rm -rf build", True),
    (None, ["run_shell_command(rm)"], "rm -rf build", False),
    (None, ["run_shell_command(rm)"], "ls && rm -rf build", False),
    (None, ["run_shell_command(rm)"], "ls || rm x", False),
    (None, ["run_shell_command(rm)"], "ls; rm x", False),
    (None, ["run_shell_command(rm)"], "ls | rm x", False),
    (None, ["run_shell_command(rm)"], "ls & rm x", False),
    (None, ["run_shell_command(rm)"], "ls\nrm x", False),
    (None, ["run_shell_command(rm)"], "/bin/rm x", False),
    (None, ["run_shell_command(rm)"], "FOO=1 rm x", False),
    (None, ["run_shell_command(rm)"], "rmdir x", True),
    (None, ["run_shell_command(rm)"], "echo rm", True),
    (None, ["run_shell_command(rm)"], "echo 'a && rm x'", True),
    (None, ["run_shell_command(git push)"], "git push origin", False),
    (None, ["run_shell_command(git push)"], "git pull", True),
    (None, ["run_shell_command(git push)"], "git status && git push", False),
    (None, ["run_shell_command"], "ls", False),
    (None, ["ShellTool(rm)"], "rm x", False),
    (["run_shell_command(git)"], [], "git status", True),
    (["run_shell_command(git)"], [], "git status && ls", False),
    (["run_shell_command(git)"], [], "gitk", False),
    (["run_shell_command(git)", "run_shell_command(ls)"], [], "git status && ls -la", True),
    (["run_shell_command(git status)"], [], "git status -s", True),
    (["run_shell_command(git status)"], [], "git commit", False),
    (["run_shell_command(git)"], [], "git log $(rm -rf /)", False),
    (["run_shell_command(git)"], [], "git log `rm x`", False),
    (["run_shell_command(git)"], ["run_shell_command(git push)"], "git push", False),
    (["run_shell_command(git)"], ["run_shell_command(git push)"], "git fetch", True),
    (["run_shell_command"], [], "anything at all", True),
    (["run_shell_command", "run_shell_command(git)"], [], "ls", True),
    (["run_shell_command"], ["run_shell_command(rm)"], "ls; rm x", False),
    (["read_file"], [], "ls", True),  # the registry decides whether the tool exists at all
    (None, [], "echo $(date)", True),
    (None, [], "   ", False),
    # a denied command hidden in a substitution, a wrapper or `sh -c` is still denied (deny wins)
    (None, ["run_shell_command(rm)"], "echo $(rm -f x)", False),
    (None, ["run_shell_command(rm)"], "echo \"$(ls; rm x)\"", False),
    (None, ["run_shell_command(rm)"], "echo `rm x`", False),
    (None, ["run_shell_command(rm)"], "cat <(rm x)", False),
    (None, ["run_shell_command(rm)"], "echo hi > >(rm x)", False),
    (None, ["run_shell_command(rm)"], "echo $(echo $(rm x))", False),
    (None, ["run_shell_command(rm)"], "sudo rm x", False),
    (None, ["run_shell_command(rm)"], "sudo -u bob rm x", False),
    (None, ["run_shell_command(rm)"], "env FOO=1 rm x", False),
    (None, ["run_shell_command(rm)"], "nohup rm x &", False),
    (None, ["run_shell_command(rm)"], "find . | xargs rm", False),
    (None, ["run_shell_command(rm)"], "bash -c 'rm x'", False),
    (None, ["run_shell_command(rm)"], "sh -c \"ls && rm x\"", False),
    (None, ["run_shell_command(rm)"], "echo $(date) '$(rm x)'", True),
    (None, ["run_shell_command(rm)"], "sudo ls", True),
    (None, ["run_shell_command(git push)"], "sudo git push", False),
    (None, ["run_shell_command(git push)"], "sudo git pull", True),
]


@pytest.mark.parametrize(("core", "exclude", "command", "allowed"), RUN_CASES)
def test_check(core: list[str] | None, exclude: list[str], command: str, allowed: bool) -> None:
    assert ShellRules(core, exclude).check(command).allowed is allowed


# (tools.allowed, session roots, command, needs confirmation)
CONFIRM_CASES = [
    ([], set(), "ls", True),
    (["run_shell_command(ls)"], set(), "ls -la", False),
    (["run_shell_command(ls)"], set(), "ls && pwd", True),
    (["run_shell_command(ls)", "run_shell_command(pwd)"], set(), "ls && pwd", False),
    (["run_shell_command(git status)"], set(), "git status", False),
    (["run_shell_command(git status)"], set(), "git push", True),
    (["run_shell_command(git)"], set(), "git push", False),
    (["run_shell_command(ls)"], set(), "ls $(rm -rf x)", True),
    (["run_shell_command"], set(), "anything", False),
    (["run_shell_command"], set(), "echo `id`", True),
    ([], {"git"}, "git status", False),
    ([], {"git"}, "git status | grep x", True),
    ([], {"git", "grep"}, "git status | grep x", False),
    ([], {"git"}, "/usr/bin/git log", False),
    ([], {"git"}, "git log <(x)", True),
    ([], {"echo"}, "echo a; rm b", True),
    ([], {"echo", "rm"}, "echo a; rm b", False),
]


@pytest.mark.parametrize(("allowed", "roots", "command", "confirm"), CONFIRM_CASES)
def test_needs_confirmation(allowed: list[str], roots: set[str], command: str, confirm: bool) -> None:
    assert ShellRules(allowed=allowed).needs_confirmation(command, roots) is confirm


def test_denied_command_always_needs_confirmation() -> None:
    rules = ShellRules(exclude=["run_shell_command(rm)"], allowed=["run_shell_command"])
    assert rules.needs_confirmation("rm x") is True
