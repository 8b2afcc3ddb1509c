"""Allowed commands judged by what they can do: everyday lines still run unasked, and the issue's attacks
(writes through options and redirects, other code through options and environment, expansions that hide a
protected path) ask, each with its reason. Decisions only; test_judge_live.py runs them for real."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gemini_tui.core.approvals.policy import ApprovalMode, ApprovalPolicy, ProtectedPaths, rules_from
from gemini_tui.core.shell.grammar import analyze
from gemini_tui.core.shell.table import PROGRAMS
from gemini_tui.core.tooling.needs import CallNeeds

EVERYDAY_RULES = ["echo", "ls", "cat", "git status", "git diff", "git log", "rg"]
EVERYDAY = [
    "echo hello", "echo 'a b' \"c d\"", "echo $HOME", "echo ~", "echo done && ls", "ls", "ls -la", "ls -la src",
    "ls -R", "ls -1 src | cat", "ls *.md", "ls src/*.py", "ls ~+/src", "ls -lh --color=never", "cat README.md",
    "cat README.md src/a.py", "cat -n src/a.py", "cat ./README.md", "cat < README.md", "cat src/{a,b}.py",
    "git status", "git status -s", "git status --short --branch", "git status --porcelain", "git diff",
    "git diff --stat", "git diff --cached", "git diff HEAD", "git diff -- README.md", "git diff --name-only",
    "git diff --word-diff", "git diff --color=always | cat", "git log", "git log --oneline -5",
    "git log -p -n 2", "git log --graph --oneline --all", "git log --stat", "git log --format='%h %s'",
    "git log --since=2.days --author=me", "git -C src log --oneline", "git --no-pager diff", "rg foo",
    "rg -n foo src", "rg -i 'a|b' -g '*.py'", "rg --files", "rg -l foo", "rg -C 3 foo", "rg -t py -w foo",
    "rg --json foo", "rg -F 'a.b' src", "cat README.md | rg foo", "ls | rg py", "git log --oneline | cat",
    "echo hi 2>/dev/null", "ls 2>&1 | cat", "git status; git diff --stat", "rg foo > /dev/null",
    "echo a; echo b", "ls -d */", "cat src/a.py | rg -n def",
]


def _git(root: Path, *args: str) -> None:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root)}
    subprocess.run(["git", *args], cwd=root, check=True, env=env, capture_output=True)


@pytest.fixture
def project(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "user"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PWD", str(root))
    monkeypatch.delenv("OLDPWD", raising=False)
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("def a(): pass\n")
    (root / "src" / "b.py").write_text("def b(): pass\n")
    (root / "README.md").write_text("foo\n")
    _git(root, "init", "-q", ".")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "x")
    return root


def policy_for(root: Path, rules: list[str], mode: ApprovalMode = ApprovalMode.default, **kwargs: object
               ) -> ApprovalPolicy:
    policy = ApprovalPolicy(allowed=rules_from("tools.allowed", [f"run_shell_command({r})" for r in rules]),
                            protected=ProtectedPaths(root, Path(os.environ["HOME"]) / ".gemini"),
                            **kwargs)  # type: ignore[arg-type]
    policy.set_mode(mode)
    return policy


def decide(policy: ApprovalPolicy, line: str, root: Path) -> object:
    return policy.decide("run_shell_command", CallNeeds(shell=analyze(line), cwd=str(root)))


def test_at_least_fifty_everyday_commands_run_unasked(project: Path) -> None:
    policy = policy_for(project, EVERYDAY_RULES)
    assert len(EVERYDAY) >= 50
    asked = {line: d for line in EVERYDAY if (d := decide(policy, line, project)).verdict != "allow"}  # type: ignore[attr-defined]
    assert asked == {}


# line -> the words its reason must hold. Every line's program is allowed (the rules name it).
ATTACKS = {
    "echo x >> ~/.bashrc": "protected path ~/.bashrc",
    "echo x > notes.txt": "tools.shell.allowRedirection",
    "git diff --output=/tmp/elsewhere.txt": "outside the workspace",
    "git diff --out=/tmp/elsewhere.txt": "--out",
    "sed -n 'w out.txt' README.md": "sed w",
    "sed -n '1e touch x' README.md": "sed",
    "find . -fprint out.txt": "find -fprint",
    "sort -o out.txt README.md": "sort",
    "sort -o \"$PWD/.gemini/settings.json\" README.md": "protected path .gemini/settings.json",
    "find . -fprintf \"$HOME/.gemini/GEMINI.md\" x": "protected path",
    "find . -fprint ~+/.geminiignore": "protected path .geminiignore",
    "sort -o .gi?/config README.md": "protected path .git/config",
    "git log --output=GEMINI.md": "protected path GEMINI.md",
    "sort -o ${HOME}/.ssh/authorized_keys README.md": "protected path ~/.ssh",
    "sort -o ~/.gitconfig README.md": "protected path ~/.gitconfig",
    "sort -o ~/.config/git/config README.md": "protected path ~/.config/git",
    "sort -o {.git,x}/config README.md": "protected path .git/config",
    "GIT_EXTERNAL_DIFF=./x git diff": "GIT_EXTERNAL_DIFF",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=./x git status": "GIT_CONFIG",
    "git -c core.fsmonitor=./x status": "git -c",
    "git fetch --upload-pack=./x origin": "upload-pack",
    "git grep --open-files-in-pager=./x foo": "open-files-in-pager",
    "rg --pre sh foo": "--pre",
    "LESSOPEN='|touch x %s' less README.md": "LESSOPEN",
    "tar --checkpoint-action=exec='touch x' -cf a.tar src": "tar --checkpoint-action",
    "tar --to-command='touch x' -xf a.tar": "tar --to-command",
    "printf -v PATH '%s' bin; ls": "PATH",
    "read PATH < README.md; ls": "PATH",
    "git --git-dir=vendor/x status": "another repository",
    "cat ~/.ssh/id_rsa": "outside the workspace",
    "cat /etc/passwd": "outside the workspace",
    "mytool --flag": "not in the table",
    "git st": "alias",
}


@pytest.mark.parametrize("line", list(ATTACKS))
def test_what_an_allowed_program_does_beyond_reading_asks_with_its_reason(project: Path, line: str) -> None:
    rules = ["echo", "git diff", "git log", "git status", "git grep", "git fetch", "git st", "sed", "find", "sort",
             "rg", "less", "tar", "printf", "read", "ls", "cat", "mytool"]
    decision = decide(policy_for(project, rules), line, project)
    assert decision.verdict == "ask", (line, decision)  # type: ignore[attr-defined]
    text = f"{decision.rule} {decision.reason}"  # type: ignore[attr-defined]
    assert ATTACKS[line] in text, (line, text)


def test_redirection_setting_lets_covered_commands_write_inside_the_root_only(project: Path) -> None:
    policy = policy_for(project, ["echo", "sort"], allow_redirection=True)
    assert decide(policy, "echo x > notes.txt", project).verdict == "allow"  # type: ignore[attr-defined]
    assert decide(policy, "sort -o out.txt README.md", project).verdict == "allow"  # type: ignore[attr-defined]
    for line in ("echo x > /tmp/elsewhere", "echo x > ~/.bashrc", "echo x > GEMINI.md", "echo x > $(date)"):
        assert decide(policy, line, project).verdict == "ask", line  # type: ignore[attr-defined]


def test_a_hooks_folder_named_by_core_hooks_path_is_protected(project: Path) -> None:
    _git(project, "config", "core.hooksPath", ".hooks-here/_")
    policy = policy_for(project, ["echo"], allow_redirection=True)
    decision = decide(policy, "echo x > .hooks-here/_/pre-commit", project)
    assert decision.verdict == "ask" and "core.hooksPath" in decision.reason  # type: ignore[attr-defined]
    for line in ("echo x > .husky/pre-commit", "echo x > .githooks/pre-push"):
        assert "protected path" in decide(policy, line, project).rule, line  # type: ignore[attr-defined]


def test_every_table_row_is_consistent() -> None:
    # a row's value-taking options are not also flags; a program that runs code says why
    for name, spec in PROGRAMS.items():
        rows = [spec, *(spec.subcommands or {}).values()]
        for row in rows:
            assert not (row.writes & (row.flags or frozenset())), name
            assert all(why is not None for why in row.code.values()), name
            if row.project:
                assert row.runs, name


YOLO_WITH_DENY = {  # line -> verdict under yolo with `rm` and `git push` excluded
    "echo push | xargs git": "deny", "echo x | xargs git status": "allow", "echo a | xargs ls": "allow",
    "echo a | xargs rm": "deny", "timeout 5 ls": "allow", "timeout 5 rm x": "deny", "sh -c 'ls'": "allow",
    "sh -c 'rm x'": "deny", "bash -c \"$X\"": "deny", "find . -exec ls {} \\;": "allow",
    "find . -exec rm {} \\;": "deny", "tar --to-command='rm x' -xf a.tar": "deny",
    "tar --to-command='cat' -xf a.tar": "allow", "make": "deny", "python3 x.py": "deny", "vim x": "deny",
    "ssh host": "deny", "sqlite3 db": "deny", "sed -n '1e ls' f": "deny", "rg --pre ./x foo": "deny",
    "flock f rm x": "deny", "flock f ls": "allow", "mytool x": "allow", "git status": "allow",
}


@pytest.mark.parametrize("line", list(YOLO_WITH_DENY))
def test_a_deny_list_under_yolo_judges_what_it_can_see(project: Path, line: str) -> None:
    policy = ApprovalPolicy(exclude=rules_from("tools.exclude", ["run_shell_command(rm)",
                                                                 "run_shell_command(git push)"]),
                            protected=ProtectedPaths(project, Path(os.environ["HOME"]) / ".gemini"))
    policy.set_mode(ApprovalMode.yolo)
    decision = decide(policy, line, project)
    assert decision.verdict == YOLO_WITH_DENY[line], (line, decision)  # type: ignore[attr-defined]
    if decision.verdict == "deny" and "rm" not in line and "push" not in line:  # type: ignore[attr-defined]
        assert "not a sandbox" in decision.reason, decision  # type: ignore[attr-defined]
