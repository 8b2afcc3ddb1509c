"""Hostile command lines through the real Session, scheduler, policy and shell tool (real bash, temp root).

Every forbidden command leaves a marker file (`touch MARK_<n>`, or a git tag `MARK_<n>`) if it runs. Each
bypass family of the issue is spelled many ways; each spelling runs against an allow-list (`tools.allowed`,
headless default mode), a strict `tools.core` list under yolo, a deny list (`tools.exclude`) under yolo, and
no rules at all (default mode, headless). No marker may appear. The same lines under yolo with no rules must
leave their markers: the corpus is live bash, not strings that would fail anyway."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from gemini_tui.core.approvals.policy import ApprovalMode
from tests.fakes.scripted_model import ScriptedModel, call, scripted_session, text

HAS = {name: shutil.which(name) is not None for name in ("python3", "perl", "awk", "git", "node")}


def touch_forms(mark: str) -> list[str]:
    """`touch <mark>` spelled through every bypass family of the issue."""
    t = f"touch {mark}"
    hexed = "".join(f"\\x{ord(c):02x}" for c in "touch")
    octal = "".join(f"\\{ord(c):03o}" for c in "touch")
    forms = [
        # comments and quoting the old splitter got wrong
        f"ls #'\n{t}", f'ls #"\n{t}', f"ls $'a\\'b' ; {t}", f"echo '#' ; {t}", f"echo \"a'b\" && {t}",
        f"ls\n{t}", f"ls && {t}", f"ls nowhere 2>/dev/null || {t}", f"false || {t}", f"ls | {t}", f"ls & {t}",
        f"ls |& {t}", f"ls;{t}", f"echo ok ; {t} ; echo done",
        # ANSI-C and other quoting of the command word
        f"$'touch' {mark}", f"$'{hexed}' {mark}", f"$'{octal}' {mark}", f"'touch' {mark}", f'"touch" {mark}',
        f"t'o'uch {mark}", f'to"u"ch {mark}', f"\\touch {mark}", f"t\\ouch {mark}", f'$"touch" {mark}',
        # expansions and line continuations in the name
        f"touch${{IFS}}{mark}", f"X=touch; $X {mark}", f"${{X:-touch}} {mark}", f"tou\\\nch {mark}",
        f"X=ouch; t$X {mark}", f"`echo touch` {mark}", f"$(echo touch) {mark}",
        # eval, source, shells and here-strings
        f"eval {t}", f"eval '{t}'", f'eval "$(echo {t})"', f"builtin eval {t}", f"command eval '{t}'",
        f"bash -c '{t}'", f"bash -lc '{t}'", f"sh -ec '{t}'", f"bash -c -- '{t}'", f"bash -xc '{t}'",
        f'sh -c "{t}"', f"/bin/bash -c '{t}'", f"env bash -c '{t}'", f"command bash -c '{t}'",
        f"bash -o errexit -c '{t}'", f"bash <<< '{t}'", f"echo '{t}' | bash", f"echo {t} | sh",
        f"printf '{t}' | bash", f"bash <<EOF\n{t}\nEOF", f"cat <<EOF | sh\n{t}\nEOF", f"echo '{t}' > s.sh; . ./s.sh",
        f"echo '{t}' > s2.sh; source s2.sh", f"echo '{t}' > s3.sh; bash s3.sh",
        # functions, aliases and compound commands
        f"f(){{ {t}; }}; f", f"function g {{ {t}; }}; g", f"ls(){{ {t}; }}; ls",
        f"if true; then {t}; fi", f"for i in 1; do {t}; done", f"while true; do {t}; break; done",
        f"until false; do {t}; break; done", f"case x in x) {t};; esac", f"{{ {t}; }}", f"({t})",
        f"! {t}", f"coproc {t}; wait", f"select x in a; do {t}; break; done <<< 1",
        f"[[ -d . ]] && {t}", f"[ -d . ] && {t}", f"test -d . && {t}",
        # substitutions
        f"echo $({t})", f"echo `{t}`", f"cat <({t})", f'echo "$({t})"', f"x=$({t})", f"echo ${{x:-$({t})}}",
        f"echo > >({t})", f"ls $({t})",
        # arithmetic and prompt expansion that run code held in a variable
        f"x='a[$({t})]'; echo $((x))", f"x='$({t})'; echo ${{x@P}}", f"x='a[$({t})]'; [[ $x -eq 0 ]]",
        # wrappers
        f"timeout 5 {t}", f"nice {t}", f"nice -n 5 {t}", f"env {t}", f"env -i PATH=/usr/bin:/bin {t}",
        f"nohup {t} >/dev/null 2>&1", f"command {t}", f"exec {t}", f"time {t}", f"stdbuf -o0 {t}",
        f"setsid {t}", f"echo {mark} | xargs touch", f"echo {mark} | xargs -I{{}} touch {{}}",
        # find -exec and interpreters
        f"find . -maxdepth 0 -exec {t} \\;", f"find . -maxdepth 0 -execdir {t} \\;",
        f"find . -maxdepth 0 -exec sh -c '{t}' \\;",
    ]
    if HAS["python3"]:
        forms += [f"python3 -c 'open(\"{mark}\", \"w\")'", f"python3 -c \"import os; os.system('{t}')\"",
                  f"echo 'open(\"{mark}\", \"w\")' | python3", f"python3 - <<EOF\nopen('{mark}', 'w')\nEOF",
                  f"python3 -Ic 'open(\"{mark}\", \"w\")'"]
    if HAS["perl"]:
        forms += [f"perl -e 'open(F, \">{mark}\")'", f"perl -le 'system(\"{t}\")'"]
    if HAS["awk"]:
        forms += [f"awk 'BEGIN{{system(\"{t}\")}}'", f"awk 'BEGIN{{print \"x\" | \"{t}\"}}'"]
    if HAS["node"]:
        forms += [f"node -e 'require(\"fs\").writeFileSync(\"{mark}\", \"\")'"]
    return forms


def git_forms(mark: str) -> list[str]:
    """`git tag <mark>` (denied as `git tag`) through git's global options and the families above."""
    return [
        f"git tag {mark}", f"git -C . tag {mark}", f"git --no-pager tag {mark}", f"git -c user.name=x tag {mark}",
        f"git --git-dir=.git tag {mark}", f"git --git-dir .git tag {mark}", f"git --work-tree=. tag {mark}",
        f"git -C . -c a.b=c --no-pager tag {mark}", f"git -p tag {mark}", f"command git tag {mark}",
        f"env git -C . tag {mark}", f"$(command -v git) tag {mark}", f"eval git tag {mark}",
        f"bash -c 'git tag {mark}'", f"g\\it tag {mark}", f"$'git' tag {mark}", f"git ta''g {mark}",
        f"git $'tag' {mark}", f"git {{tag,}} {mark}", f"git -c alias.t=tag t {mark}", f"T=tag; git $T {mark}",
        f"git --literal-pathspecs tag {mark}", f"timeout 5 git tag {mark}",
    ]


def _settings(home: Path, settings: dict[str, object]) -> None:
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))


def _git_init(root: Path) -> None:
    if not HAS["git"]:
        pytest.skip("git is not installed")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin", "HOME": str(root)}
    subprocess.run(["git", "init", "-q", "."], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "x"], cwd=root, check=True, env=env)


async def run_lines(root: Path, home: Path, lines: list[str], mode: ApprovalMode,
                    sandbox: bool | None = None) -> list[dict[str, object]]:
    """Sends every line as one run_shell_command call of one model turn through a real headless Session."""
    model = ScriptedModel().add([call("run_shell_command", command=line) for line in lines]).add(text("done"))
    extra = {} if sandbox is None else {"sandbox": sandbox}
    session = scripted_session(root, model, home, approval_mode=mode, interactive=False, **extra)
    try:
        await session.send("go")
    finally:
        await session.close()
    [responses] = [c for c in model.requests[-1].contents if c.role == "user" and c.parts][-1:]
    return [part.response for part in responses.parts]  # type: ignore[union-attr]


def markers(root: Path) -> set[str]:
    found = {p.name for p in root.rglob("MARK_*")}
    tags = root / ".git" / "refs" / "tags"
    if tags.is_dir():
        found |= {f"tag:{p.name}" for p in tags.iterdir()}
    return found


RULE_SETS: dict[str, tuple[dict[str, object], ApprovalMode]] = {
    "allow-list (tools.allowed, default)": (
        {"tools": {"allowed": ["run_shell_command(ls)", "run_shell_command(echo)", "run_shell_command(cat)",
                               "run_shell_command(git status)", "run_shell_command(find)", "run_shell_command(test)",
                               "run_shell_command(true)", "run_shell_command(false)", "run_shell_command(printf)"],
                   "shell": {"allowRedirection": True}}},  # the control line writes CONTROL inside the root
        ApprovalMode.default),
    "strict tools.core under yolo": (
        {"tools": {"core": ["run_shell_command(ls)", "run_shell_command(echo)", "run_shell_command(cat)",
                            "run_shell_command(git status)", "run_shell_command(true)", "run_shell_command(test)"]}},
        ApprovalMode.yolo),
    "deny-list (tools.exclude) under yolo": (
        {"tools": {"exclude": ["run_shell_command(touch)", "run_shell_command(git tag)", "run_shell_command(rm)"]}},
        ApprovalMode.yolo),
    "no rules, default mode": ({}, ApprovalMode.default),
}


def corpus(make: Callable[[str], list[str]], prefix: str) -> tuple[list[str], list[str]]:
    lines: list[str] = []
    marks: list[str] = []
    for index, line in enumerate(make("MARK")):
        mark = f"MARK_{prefix}{index}"
        lines.append(line.replace("MARK", mark))
        marks.append(mark)
    return lines, marks


@pytest.mark.parametrize("rule_set", list(RULE_SETS))
async def test_no_forbidden_command_runs(root: Path, home: Path, rule_set: str) -> None:
    settings, mode = RULE_SETS[rule_set]
    _settings(home, settings)
    _git_init(root)
    touch_lines, _ = corpus(touch_forms, "t")
    git_lines, _ = corpus(git_forms, "g")
    control = "echo allowed > CONTROL" if "core" not in rule_set else "echo allowed"
    responses = await run_lines(root, home, [*touch_lines, *git_lines, control], mode)
    assert len(responses) == len(touch_lines) + len(git_lines) + 1
    assert markers(root) == set(), f"{rule_set}: forbidden commands ran"
    refused = [r for r in responses[:-1] if "error" in r]
    assert len(refused) == len(responses) - 1, [r for r in responses[:-1] if "error" not in r][:3]
    if rule_set != "no rules, default mode":
        assert "error" not in responses[-1], responses[-1]  # the rules still let plain allowed commands run


async def test_the_corpus_is_live_bash(root: Path, home: Path) -> None:
    """Under yolo with no rules every line runs and leaves its marker: a line that could not run anyway would
    prove nothing above."""
    _git_init(root)
    touch_lines, touch_marks = corpus(touch_forms, "t")
    git_lines, git_marks = corpus(git_forms, "g")
    # --no-sandbox: the proof is about the bash lines, which the default sandbox would partly keep from landing
    await run_lines(root, home, [*touch_lines, *git_lines], ApprovalMode.yolo, sandbox=False)
    found = markers(root)
    dead = [line for line, mark in zip(touch_lines, touch_marks, strict=True) if mark not in found]
    dead += [line for line, mark in zip(git_lines, git_marks, strict=True) if f"tag:{mark}" not in found]
    assert dead == []
    assert len(touch_lines) + len(git_lines) >= 120
