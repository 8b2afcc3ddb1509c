"""Containment by construction: the classes of attack that got past judging a command's words, each a family of
commands run for real (bash, git, bwrap) in every approval mode with the sandbox on and off. Inside the sandbox
nothing reaches a protected place or a secret; outside it, a change to a protected place nobody approved is put
back after the command, and one the user approved (at a prompt, or under yolo) is named to the model."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from gemini_tui.core.approvals.policy import ApprovalMode, ApprovalPolicy, Rule, Verdict
from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.processes.sandbox import Sandbox, build_sandbox, sandbox_request
from gemini_tui.core.tooling.tool import CallContext
from gemini_tui.tools.shell import ShellTool
from gemini_tui.tools.workspace import Workspace

SECRET = "SECRET-KEY-41"
PAYLOAD = "PAYLOAD-41"
BOX_WORKS = build_sandbox(sandbox_request(True, {}, None), [Path("/")]).problem is None
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", "-c",
       "protocol.file.allow=always"]


def git(root: Path, *args: str) -> None:
    subprocess.run([*GIT, "-C", str(root), *args], check=True, capture_output=True, timeout=30)


@dataclass(frozen=True)
class Attack:
    family: str
    command: str
    allowed: tuple[str, ...]  # the user's tools.allowed for it (the "a careful user's rules")
    reads_secret: bool = False  # contained means: the secret is not in the output

    @property
    def id(self) -> str:
        return f"{self.family}:{self.command[:40]}"


CP = ("run_shell_command(cp)", "run_shell_command(mkdir)", "run_shell_command(ln)", "run_shell_command(sleep)",
      "run_shell_command(mv)", "run_shell_command(git)", "run_shell_command(cat)", "run_shell_command(echo)")
ATTACKS = [
    *(Attack("input redirection reads", command, CP, reads_secret=True) for command in (
        "cat < ~/.ssh/id_rsa", "cat /dev/fd/3 3< ~/.ssh/id_rsa", 'echo "$(< ~/.ssh/id_rsa)"',
        "while read l; do echo $l; done < ~/.ssh/id_rsa")),
    *(Attack("a copy lands a protected file", command, CP) for command in (
        "cp -r tpl/. .", "cp -rT tpl .", "cp tpl/GEMINI.md .", "git checkout evil -- .gemini GEMINI.md",
        "cp tpl/hook .git/hooks/pre-commit")),
    *(Attack("a link made earlier on the line", command, CP) for command in (
        "ln -s .git/hooks h; cp tpl/hook h/pre-commit", "ln -s .gemini g; cp tpl/.gemini/settings.json g/")),
    Attack("a background job swaps a folder for a link",
           "mkdir d; (sleep 0.2; mv d d.old; ln -s .git/hooks d) & sleep 0.6; cp tpl/hook d/pre-commit", CP),
    Attack("a nested repository with core.fsmonitor, added as a gitlink",
           'git init -q sub && git -C sub config core.fsmonitor "touch PWNED" && '
           "git -C sub -c user.name=t -c user.email=t@t commit -q --allow-empty -m x && git add sub", CP),
]
MODES = [ApprovalMode.default, ApprovalMode.auto_edit, ApprovalMode.plan, ApprovalMode.yolo]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository every case starts from, made once (eight git commands) and copied for each case: a
    `main` branch with GEMINI.md and the templates in `tpl/`, and an `evil` branch whose commit lands a
    .gemini/settings.json and a GEMINI.md carrying the payload."""
    root = tmp_path_factory.mktemp("containment-template") / "root"
    root.mkdir()
    git(root, "init", "-q")
    (root / "GEMINI.md").write_text("be helpful\n")
    git(root, "add", "GEMINI.md")
    git(root, "commit", "-qm", "start")
    tpl = root / "tpl"
    (tpl / ".gemini").mkdir(parents=True)
    (tpl / ".gemini" / "settings.json").write_text(f'{{"tools": {{"allowed": ["{PAYLOAD}"]}}}}')
    (tpl / "GEMINI.md").write_text(PAYLOAD)
    (tpl / "hook").write_text(f"#!/bin/sh\necho {PAYLOAD}\n")
    git(root, "checkout", "-qb", "evil")
    (root / ".gemini").mkdir(exist_ok=True)
    (root / ".gemini" / "settings.json").write_text(PAYLOAD)
    (root / "GEMINI.md").write_text(PAYLOAD)
    git(root, "add", "-f", ".gemini", "GEMINI.md")
    git(root, "commit", "-qm", "evil")
    git(root, "checkout", "-q", "main")
    return root


@pytest.fixture
def place(tmp_path: Path, template: Path) -> tuple[Path, Path]:
    root, home = tmp_path / "root", tmp_path / "home"
    shutil.copytree(template, root, symlinks=True)
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(SECRET + "\n")
    assert not (root / ".gemini").exists() and (root / "GEMINI.md").read_text() == "be helpful\n"
    return root, home


def planted(root: Path, home: Path, pwned: Path) -> list[str]:
    """What the attack left that would run or steer code later, outside any sandbox."""
    found = []
    hook = root / ".git" / "hooks" / "pre-commit"
    if os.path.lexists(hook):
        found.append("a pre-commit hook")
    settings = root / ".gemini" / "settings.json"
    if settings.is_file() and PAYLOAD in settings.read_text():
        found.append(".gemini/settings.json")
    if PAYLOAD in (root / "GEMINI.md").read_text():
        found.append("GEMINI.md")
    if (root / "sub").is_dir():  # the user's own `git status`, outside the sandbox, runs what sub's config says
        pwned.unlink(missing_ok=True)  # the command's own git runs it too: that is the command, not later
        subprocess.run(["git", "-C", str(root), "status", "--porcelain"], capture_output=True, timeout=30,
                       env={**os.environ, "HOME": str(home)})
        subprocess.run(["git", "-C", str(root / "sub"), "status", "--porcelain"], capture_output=True, timeout=30,
                       env={**os.environ, "HOME": str(home)})
        if pwned.exists():
            found.append("core.fsmonitor ran")
    return found


def run(tool: ShellTool, command: str, context: CallContext) -> str:
    params = tool.validate_params({"command": command})
    assert not hasattr(params, "message"), params
    result = asyncio.run(tool.execute(params, AbortSignal(), context))  # type: ignore[arg-type]
    assert isinstance(result.llm_content, str)
    return result.llm_content


cases = [pytest.param(attack, mode, boxed, id=f"{attack.id}-{mode}-{'sandbox' if boxed else 'no-sandbox'}")
         for attack in ATTACKS for mode in MODES for boxed in (True, False)
         if not (attack.reads_secret and not boxed)]  # a read outside the sandbox is the judge's to ask about


@pytest.mark.parametrize(("attack", "mode", "boxed"), cases)
def test_an_attack_is_contained_or_named(place: tuple[Path, Path], attack: Attack, mode: ApprovalMode,
                                         boxed: bool, tmp_path: Path) -> None:
    if boxed and not BOX_WORKS:
        pytest.skip("bubblewrap cannot start here")
    root, home = place
    pwned = tmp_path / "pwned"
    env = {**os.environ, "HOME": str(home)}
    sandbox = build_sandbox(sandbox_request(True, env, None), [root], env) if boxed else Sandbox()
    tool = ShellTool(Workspace(root), sandbox=sandbox, env=env)
    policy = ApprovalPolicy(mode=mode, allowed=[Rule("tools.allowed", text) for text in attack.allowed])
    decision = policy.decide(tool.name, tool.needs(tool.validate_params({"command": attack.command})))  # type: ignore[arg-type]
    if decision.verdict is Verdict.deny:
        assert mode is ApprovalMode.plan
        return
    # asked: the user says yes at the prompt; allowed: it runs unasked
    asked = decision.verdict is Verdict.ask
    command = attack.command.replace("PWNED", str(pwned))
    said = run(tool, command, CallContext(extra={"approved": asked, "yolo": mode is ApprovalMode.yolo}))
    if attack.reads_secret:
        assert SECRET not in said
        return
    left = planted(root, home, pwned)
    if boxed or not (asked or mode is ApprovalMode.yolo):
        assert not left, said  # nobody could approve it (inside), or nobody did (a rule ran it): put back
    else:
        # the user approved this very command (outside the sandbox): what it changed stays, and is named
        for what in left:
            if what != "core.fsmonitor ran":
                assert "protected places" in said and "(kept: approved)" in said, said


TOUCH: dict[str, Callable[[Path], object]] = {
    "a hook changed": lambda r: (r / ".git" / "hooks" / "post-merge").write_text("#!/bin/sh\n"),
    "the git config changed": lambda r: (r / ".git" / "config").write_text("[core]\n\tbare = false\n"),
    "a context file deep down": lambda r: (r / "a" / "b").mkdir(parents=True) or (r / "a" / "b" / "GEMINI.md")
    .write_text("x"),
}


@pytest.mark.parametrize("what", list(TOUCH))
def test_a_change_made_between_commands_is_the_users_own(place: tuple[Path, Path], what: str) -> None:
    """The snapshot before each command is the baseline: what the user did in their editor meanwhile stays."""
    root, home = place
    tool = ShellTool(Workspace(root), sandbox=Sandbox(), env={**os.environ, "HOME": str(home)})
    run(tool, "true", CallContext())
    TOUCH[what](root)
    said = run(tool, "true", CallContext())
    assert "protected places" not in said


# inside, nothing leaves: no name resolves, and /usr is read-only (only ever run inside)
ESCAPES = [("curl -sS http://example.com/", "it needs the network"),
           ("touch /usr/gemini-tui-never-made", "outside the workspace")]


@pytest.mark.parametrize("mode", [m for m in MODES if m is not ApprovalMode.plan])
def test_leaving_the_sandbox_asks_in_every_mode_and_a_grant_covers_it_again(tmp_path: Path, mode: ApprovalMode) -> None:
    from gemini_tui.core.approvals.grants import GrantScope

    if not BOX_WORKS:
        pytest.skip("bubblewrap cannot start here")
    root = tmp_path / "root"
    root.mkdir()
    tool = ShellTool(Workspace(root), sandbox=build_sandbox(sandbox_request(True, {}, None), [root]))
    policy = ApprovalPolicy(mode=mode, allowed=[Rule("tools.allowed", "run_shell_command(curl)")])
    params = tool.validate_params({"command": "curl -sS http://example.com", "outside_sandbox": True,
                                   "description": "fetch the page"})
    decision = policy.decide(tool.name, tool.needs(params))  # type: ignore[arg-type]
    assert decision.verdict is Verdict.ask and decision.rule == "leaves the sandbox"
    assert "fetch the page" in decision.reason and "--no-sandbox" in decision.reason  # what lifts it headless
    policy.grants.grant(decision.grants, GrantScope.session)
    assert policy.decide(tool.name, tool.needs(params)).verdict is Verdict.allow  # type: ignore[arg-type]
    inside = tool.validate_params({"command": "curl -sS http://example.com"})
    assert tool.needs(inside).escalation is None  # type: ignore[arg-type]
    assert ShellTool(Workspace(root), sandbox=Sandbox()).needs(params).escalation is None  # type: ignore[arg-type]


@pytest.mark.parametrize(("command", "reason"), ESCAPES)
def test_a_failure_with_the_sandboxs_mark_is_offered_again_outside(tmp_path: Path, command: str,
                                                                   reason: str) -> None:
    if not BOX_WORKS:
        pytest.skip("bubblewrap cannot start here")
    root = tmp_path / "root"
    root.mkdir()
    command = command.format(tmp=tmp_path)
    boxed = ShellTool(Workspace(root), sandbox=build_sandbox(sandbox_request(True, {}, None), [root]))
    said = run(boxed, command, CallContext())
    assert reason in said and "outside_sandbox: true" in said
    bare = run(ShellTool(Workspace(root), sandbox=Sandbox()), "false", CallContext())
    assert "outside_sandbox" not in bare


# Writes the sandbox stops, spelled with relative paths (from the root, or after a `cd`): (command, what the offer
# says). `../outside` exists beside the root on the host; inside the sandbox the root's parent is private.
OUTSIDE = "outside the workspace"
PUT_BACK = "a protected place the sandbox put back"
RELATIVE = [
    *((command, OUTSIDE) for command in (
        "sort -o ../outside/x f", "tee ../outside/x < f", "cp f ../outside/x", "echo x > ../outside/x",
        "echo x >> ../outside/x", "touch ../outside/x", "mkdir ../outside/d", "ln -s f ../outside/l",
        "cd sub && touch ../../outside/x", "cd sub && sort -o ../../outside/x ../f",
        "cd sub/deep && cp ../../f ../../../outside/x")),
    *((command, "a protected place, read-only inside the sandbox") for command in (
        "echo x >> .git/config", "cp f .git/config", "echo x > .git/hooks/pre-commit", "touch .git/hooks/post-merge",
        "echo x > GEMINI.md", "sort -o GEMINI.md f", "echo '{}' > .gemini/settings.json",
        "cd .gemini && echo x > settings.json")),
    *((command, OUTSIDE) for command in ("cd / && touch y", "cd /usr && echo x > y", "cd .. && cd / && touch y")),
    ("cd .git && echo x >> config", "a protected place, read-only inside the sandbox"),
    ("cd sub && sort -o ../GEMINI.md ../f", "a protected place, read-only inside the sandbox"),
    *((command, PUT_BACK) for command in ("echo x > new/GEMINI.md", "cp f sub/deep/GEMINI.md", "cp f sub/GEMINI.md")),
]


@pytest.mark.parametrize(("command", "reason"), RELATIVE, ids=[c for c, _ in RELATIVE])
def test_a_relative_path_the_sandbox_stops_is_offered_again_outside(tmp_path: Path, command: str,
                                                                    reason: str) -> None:
    if not BOX_WORKS:
        pytest.skip("bubblewrap cannot start here")
    root = tmp_path / "root"
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "new").mkdir()
    (tmp_path / "outside").mkdir()
    (root / "f").write_text("b\na\n")
    git(root, "init", "-q")
    (root / ".git" / "hooks").mkdir(exist_ok=True)
    (root / ".gemini").mkdir()
    (root / "GEMINI.md").write_text("# rules\n")
    (root / "sub" / "GEMINI.md").write_text("# sub rules\n")
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    boxed = ShellTool(Workspace(root), sandbox=build_sandbox(sandbox_request(True, {}, None), [root]))
    said = run(boxed, command, CallContext())
    assert reason in said and "outside_sandbox: true" in said, said
    assert not any((tmp_path / "outside").iterdir())  # and nothing landed outside
    assert all(p.read_bytes() == data for p, data in before.items())  # nor in a protected place
    if "../outside" in command:  # the offer names the place as the host sees it
        assert str(tmp_path / "outside") in said


def test_a_client_terminal_command_gets_the_sandboxs_environment_not_the_editors(tmp_path: Path) -> None:
    """An editor's terminal starts commands with the editor's environment: bwrap replaces it inside."""
    if not BOX_WORKS:
        pytest.skip("bubblewrap cannot start here")
    root = tmp_path / "root"
    root.mkdir()
    editor = {**os.environ, "GEMINI_API_KEY": "editor-key-41", "GH_TOKEN": "editor-token-41"}
    sandbox = build_sandbox(sandbox_request(True, {}, None), [root])
    tool = ShellTool(Workspace(root), sandbox=sandbox, env=editor)
    argv = sandbox.wrap(["env"], root, env=tool._environment())
    done = subprocess.run(argv, env=editor, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert "editor-key-41" not in done.stdout and "editor-token-41" not in done.stdout
    assert "GEMINI_CLI=1" in done.stdout  # the markers every command sees are still there
