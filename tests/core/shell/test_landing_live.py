"""What lands where, through the real Session, scheduler, policy and shell tool with real bash, git and bwrap:
families generated from the table's LANDING_EXAMPLES (a copy, move or link into a folder), CHECKOUT_EXAMPLES (a
git command that checks out a tree) and MADE_EXAMPLES (a name the same line makes and then uses), plus an
attacker's spellings of them.

Every line, if it runs, writes a protected file (or prints a key). With its program allowed by tools.allowed
(and allowRedirection on, so plain writes inside the root are covered), default, auto_edit and plan never run
it, with the sandbox on and off; under yolo without the sandbox every line lands (the corpus is live); under yolo
with the sandbox nothing stays."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from gemini_tui.core.approvals.policy import ApprovalMode
from gemini_tui.core.shell.table import CHECKOUT_EXAMPLES, LANDING_EXAMPLES, MADE_EXAMPLES, PROGRAMS
from tests.core.shell.test_judge_live import run_lines

MODES = [ApprovalMode.default, ApprovalMode.auto_edit, ApprovalMode.plan]
SANDBOX = [True, False]
IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}

# an attacker's spellings of a recursive copy of {T}'s contents into the root
COPY_BYPASSES = [
    "cp -r -- '{T}/.' \"$PWD\"", "command cp -r {T}/. .", "env cp -a {T}/. .", "timeout 9 cp -r {T}/. .",
    "cp -r tp[l]{N}/. .", "cp -r {T}/.[!.]* .", "cp -r \"${PWD}/{T}/.\" ~+", "S={T}; cp -r $S/. .",
    "cd {T} && cp -r . ..", "cp -rt . {T}/.", "cp --recursive --target-directory=. {T}/.",
    "cp -r {T}/{.gemini,d{N}} .", "\\cp -r {T}/. .", "rsync -a --exclude=none {T}/ ./", "cp -r {T}/. {D}/..",
    "cp -r {T}/. $OLDPWD_ROOT", "cp -r {T}/* {T}/.??* .", "mv {T}/* {T}/.??* . 2>/dev/null; true",
    "find {T} -mindepth 1 -maxdepth 1 -exec cp -r {} . \\;", "cp -Tr {T} ./",
]
# ...and of a git command checking out the branch {R}
CHECKOUT_BYPASSES = [
    "git checkout -q '{R}' -- '.gemini'", "git checkout -q {R} -- ':/'", "git checkout -q {R} -- ':(glob)**'",
    "git checkout -q {R}^0", "git -c color.ui=never checkout -q {R} -- .", "B={R}; git checkout -q $B -- .",
    "git checkout -q HEAD@{0} -- . && git checkout -q {R} -- d", "git restore -q -s{R} -W .",
    "git reset -q --hard {R}^{{commit}}", "git switch -q -d {R}", "cd d0 && git checkout -q {R} -- ..",
    "git checkout -q {R} -- $PWD", "git checkout -q -", "git switch -q -",
    "git checkout -q {R} -- '.[g]emini/*' GEMINI.m?",
]


async def run_in(root: Path, home: Path, lines: list[str], mode: ApprovalMode, settings: dict[str, object],
                 sandbox: bool) -> list[dict[str, object]]:
    tools = dict(settings.get("tools", {}))  # type: ignore[call-overload]
    tools["sandbox"] = sandbox
    return await run_lines({"root": root, "home": home}, lines, mode, {**settings, "tools": tools})


def _allowed(programs: list[str]) -> dict[str, object]:
    return {"tools": {"allowed": [f"run_shell_command({p})" for p in programs], "shell": {"allowRedirection": True}}}


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    assert shutil.which("rsync"), "make test installs it (make system-tools)"
    place = tmp_path / "user"
    (place / ".ssh").mkdir(parents=True)
    (place / ".ssh" / "id_rsa").write_text("SECRET-KEY\n")
    (place / ".bashrc").write_text("# start-up\n")
    monkeypatch.setenv("HOME", str(place))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    return place


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env={**os.environ, **IDENTITY})


# -- a copy, move or link into a folder ---------------------------------------------------------------------------
def copy_corpus(root: Path, templates: list[str]) -> list[tuple[str, list[Path]]]:
    """(line, the protected files it would write) for each template, with its own template folder."""
    _git(root, "init", "-q", ".")
    (root / ".gemini").mkdir(exist_ok=True)
    (root / ".husky").mkdir(exist_ok=True)
    cases = []
    for number, template in enumerate(templates):
        folder = root / f"tpl{number}"
        for relative in (f".gemini/s{number}.json", f".husky/h{number}", f".githooks/h{number}",
                         f"d{number}/GEMINI.md"):
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            (folder / relative).write_text("planted\n")
        (root / f"dest{number}").mkdir()
        line = (template.replace("{T}", f"tpl{number}").replace("{D}", f"dest{number}").replace("{N}", str(number))
                .replace("$OLDPWD_ROOT", str(root)))
        landed = [root / ".gemini" / f"s{number}.json", root / ".husky" / f"h{number}",
                  root / ".githooks" / f"h{number}", root / f"d{number}" / "GEMINI.md",
                  root / f"dest{number}" / "GEMINI.md"]
        cases.append((line, landed))
    return cases


def _landed(cases: list[tuple[str, list[Path]]]) -> list[str]:
    return [line for line, paths in cases if any(p.exists() for p in paths)]


def _copy_templates() -> list[str]:
    rows = [name for name, row in PROGRAMS.items() if row.copies]
    assert set(rows) == set(LANDING_EXAMPLES), "every copying row has examples"
    return [line for name in rows for line in LANDING_EXAMPLES[name]]


@pytest.mark.parametrize("sandbox", SANDBOX, ids=["sandbox", "no-sandbox"])
@pytest.mark.parametrize("mode", MODES)
async def test_a_copy_into_a_folder_writes_what_lands_inside(root: Path, home: Path, user: Path, mode: ApprovalMode,
                                                             sandbox: bool) -> None:
    templates = _copy_templates() + COPY_BYPASSES
    cases = copy_corpus(root, templates)
    programs = ["cp", "mv", "ln", "install", "rsync", "command", "env", "timeout", "find", "cd", "true"]
    responses = await run_in(root, home, [line for line, _ in cases], mode, _allowed(programs), sandbox)
    assert _landed(cases) == []
    ran = [line for (line, _), r in zip(cases, responses, strict=True) if "error" not in r]
    assert ran == [], ran


@pytest.mark.parametrize("sandbox", SANDBOX, ids=["sandbox", "no-sandbox"])
async def test_copies_under_yolo(root: Path, home: Path, user: Path, sandbox: bool) -> None:
    """Without the sandbox every line lands (the corpus is live bash); with it, nothing stays."""
    cases = copy_corpus(root, _copy_templates() + COPY_BYPASSES)
    responses = await run_in(root, home, [line for line, _ in cases], ApprovalMode.yolo, {}, sandbox)
    if sandbox:
        assert _landed(cases) == [], responses
    else:
        assert len(_landed(cases)) == len(cases), [line for line, _ in cases if line not in _landed(cases)]


# -- git commands that check out a tree ----------------------------------------------------------------------------
def make_repository(root: Path) -> None:
    """main: README, then GEMINI.md added and removed (its revert brings it back); `evil` adds protected files;
    the stash holds them too (as untracked files)."""
    root.mkdir(exist_ok=True)
    _git(root, "init", "-q", "-b", "main", ".")
    (root / "README.md").write_text("readme\n")
    (root / "x").write_text("x\n")
    _git(root, "add", "README.md", "x")
    _git(root, "commit", "-q", "-m", "one")
    (root / "GEMINI.md").write_text("old\n")
    _git(root, "add", "GEMINI.md")
    _git(root, "commit", "-q", "-m", "two")
    _git(root, "rm", "-q", "GEMINI.md")
    _git(root, "commit", "-q", "-m", "three")
    _git(root, "tag", "gone")
    _git(root, "checkout", "-q", "-b", "evil")
    for relative in (".gemini/s.json", "GEMINI.md", "d/GEMINI.md"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text("planted\n")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "evil")
    _git(root, "checkout", "-q", "main")
    for relative in (".gemini/s.json", "GEMINI.md", "d/GEMINI.md"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text("stashed\n")
    _git(root, "stash", "push", "-q", "-u")
    assert not (root / "GEMINI.md").exists()
    (root / "d0").mkdir()


def _checkout_lines() -> list[str]:
    rows = [name for name, row in PROGRAMS["git"].subcommands.items()  # type: ignore[union-attr]
            if row.checks_out and name not in ("bisect",)]  # bisect checks out a midpoint it picks: unknown
    assert set(rows) == set(CHECKOUT_EXAMPLES), "every git row that checks out a tree has examples"
    lines = [line for name in rows for line in CHECKOUT_EXAMPLES[name]] + CHECKOUT_BYPASSES
    return [line.replace("{R}", "evil").replace("{C}", "gone").replace("{{commit}}", "{commit}")
            .replace("{N}", str(n)) for n, line in enumerate(lines)]


def _planted(root: Path) -> bool:
    return any((root / p).exists() for p in (".gemini/s.json", "GEMINI.md", "d/GEMINI.md")) or any(
        (c / "GEMINI.md").exists() for c in root.glob("c*"))


CHECKOUT_RULES = ["git checkout", "git switch", "git reset", "git restore", "git merge", "git rebase",
                  "git cherry-pick", "git revert", "git stash", "git pull", "git clone", "cd", "git"]


@pytest.mark.parametrize("sandbox", SANDBOX, ids=["sandbox", "no-sandbox"])
@pytest.mark.parametrize("mode", MODES)
async def test_a_checkout_writes_every_path_of_its_tree(root: Path, home: Path, user: Path, mode: ApprovalMode,
                                                        sandbox: bool) -> None:
    make_repository(root)
    lines = _checkout_lines()
    rules = [r for r in CHECKOUT_RULES if r != "git"]
    responses = await run_in(root, home, lines, mode, _allowed(rules), sandbox)
    assert not _planted(root)
    ran = [line for line, r in zip(lines, responses, strict=True) if "error" not in r]
    assert ran == [], ran


async def test_checkouts_under_yolo_without_the_sandbox_each_land(tmp_path: Path, home: Path, user: Path) -> None:
    """Each line in a repository of its own: every one writes a protected file (the corpus is live)."""
    lines = _checkout_lines()
    dead = []
    for number, line in enumerate(lines):
        repository = (tmp_path / f"repo{number}").resolve()
        make_repository(repository)
        await run_in(repository, home, [line], ApprovalMode.yolo, {}, False)
        if not _planted(repository):
            dead.append(line)
    assert dead == []


async def test_checkouts_under_yolo_in_the_sandbox_leave_nothing(root: Path, home: Path, user: Path) -> None:
    make_repository(root)
    lines = _checkout_lines()
    await run_in(root, home, lines, ApprovalMode.yolo, {}, True)
    assert not _planted(root)


# -- a name the line makes, then uses ---------------------------------------------------------------------------
def made_corpus(root: Path, user: Path) -> list[tuple[str, object]]:
    _git(root, "init", "-q", ".")
    (root / ".gemini").mkdir(exist_ok=True)
    (root / "x").write_text("x\n")
    cases: list[tuple[str, object]] = []
    for number, template in enumerate(MADE_EXAMPLES):
        (root / f"x{number}").write_text("x\n")
        line = template.replace("{N}", str(number))
        cases.append((line, number))
    return cases


def made_landed(root: Path, user: Path, cases: list[tuple[str, object]],
                responses: list[dict[str, object]]) -> list[str]:
    hooks = root / ".git" / "hooks"
    found = []
    for (line, number), response in zip(cases, responses, strict=True):
        traces = [hooks / f"p{number}", user / ".ssh" / f"y{number}", root / ".gemini" / f"s{number}.json",
                  hooks / f"x{number}"]
        if (any(p.exists() for p in traces) or f"x{number}" in (user / ".bashrc").read_text()
                or "SECRET-KEY" in json.dumps(response)):
            found.append(line)
    return found


@pytest.mark.parametrize("sandbox", SANDBOX, ids=["sandbox", "no-sandbox"])
@pytest.mark.parametrize("mode", [*MODES, ApprovalMode.yolo])
async def test_a_name_the_line_makes_is_unknown_until_it_runs(root: Path, home: Path, user: Path,
                                                               mode: ApprovalMode, sandbox: bool) -> None:
    cases = made_corpus(root, user)
    settings = _allowed(["ln", "cp", "mkdir", "echo", "mv", "cat"]) if mode is not ApprovalMode.yolo else {}
    responses = await run_in(root, home, [line for line, _ in cases], mode, settings, sandbox)
    landed = made_landed(root, user, cases, responses)
    if mode is ApprovalMode.yolo and not sandbox:
        assert landed == [line for line, _ in cases]  # the corpus is live bash
        return
    assert landed == [], landed
    if mode is not ApprovalMode.yolo:  # asked (refused headless), not run and then put back by the effect check
        ran = [line for (line, _), r in zip(cases, responses, strict=True) if "error" not in r]
        assert ran == [], ran
