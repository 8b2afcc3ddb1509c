"""What a sandbox's start learns once per process, and when it is learned again: the probe (`bwrap ... true`), the
seccomp program and its descriptor, the user's git identity. Counted for real: a bwrap and a git that log each
start, then run the real ones. A failure is never kept, and a bwrap that stops starting after a kept probe fails
its command with bwrap's words while the sandbox stays on."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from gemini_tui.core.processes.sandbox import SandboxRequest, build_sandbox
from gemini_tui.core.processes.sandbox_places import git_identity
from gemini_tui.tools.shell.tool import ShellTool
from gemini_tui.tools.workspace import Workspace
from tests.tools.test_sandbox import BWRAP, needs_bwrap, run

ON = SandboxRequest("true", "tools.sandbox")
NET = SandboxRequest("true", "tools.sandbox", network=True)
REAL_GIT = shutil.which("git")


def logging_program(path: Path, real: str, log: Path, refuse_when: Path | None = None) -> Path:
    """A program that logs its start and runs `real`: or, while `refuse_when` exists, fails as a bwrap without
    user namespaces does."""
    refuse = (f'if [ -e "{refuse_when}" ]; then echo "bwrap: No permissions to create new namespace" >&2; exit 1; fi\n'
              if refuse_when is not None else "")
    path.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\n{refuse}exec "{real}" "$@"\n')
    path.chmod(0o755)
    return path


def starts(log: Path, last: str | None = None) -> int:
    lines = log.read_text().splitlines() if log.exists() else []
    return sum(1 for line in lines if last is None or line.endswith(last))


def probes(log: Path) -> int:
    return starts(log, " -- true")


@needs_bwrap
@pytest.mark.parametrize(("change", "probed_again"), [
    ("nothing", False),
    ("another root", False),
    ("the network", True),
    ("bwrap's file", True),
])
def test_a_probe_is_reused_only_for_the_same_bwrap_and_namespaces(tmp_path: Path, change: str,
                                                                  probed_again: bool) -> None:
    assert BWRAP is not None
    log = tmp_path / "bwrap.log"
    bwrap = logging_program(tmp_path / "bwrap", BWRAP, log)
    roots = [tmp_path / "a", tmp_path / "b"]
    for folder in roots:
        folder.mkdir()
    env = {**os.environ, "GEMINI_TUI_BWRAP": str(bwrap)}
    first = build_sandbox(ON, [roots[0]], env)
    assert first.active and probes(log) == 1
    request, root = ON, roots[0]
    if change == "another root":
        root = roots[1]
    elif change == "the network":
        request = NET
    elif change == "bwrap's file":
        bwrap.write_text(bwrap.read_text() + "# changed\n")
    second = build_sandbox(request, [root], env)
    assert second.active
    assert probes(log) == (2 if probed_again else 1)


@needs_bwrap
async def test_a_failed_probe_is_not_kept_and_a_kept_one_still_reports_a_later_failure(tmp_path: Path) -> None:
    assert BWRAP is not None
    log, refuse = tmp_path / "bwrap.log", tmp_path / "refuse"
    bwrap = logging_program(tmp_path / "bwrap", BWRAP, log, refuse_when=refuse)
    root = tmp_path / "root"
    root.mkdir()
    env = {**os.environ, "GEMINI_TUI_BWRAP": str(bwrap)}
    refuse.touch()
    for attempt in (1, 2):  # asked for by name: refused, and probed again each time
        refused = build_sandbox(ON, [root], env)
        assert refused.problem is not None and "No permissions to create new namespace" in refused.problem
        assert probes(log) == attempt
    refuse.unlink()
    assert build_sandbox(ON, [root], env).active and probes(log) == 3
    refuse.touch()  # bwrap stops starting: the next sandbox reuses the probe, its command fails closed
    sandbox = build_sandbox(ON, [root], env)
    assert sandbox.active and probes(log) == 3
    result = await run(ShellTool(Workspace(root), sandbox=sandbox), "touch ran")
    said = str(result.llm_content)
    assert "No permissions to create new namespace" in said and "Exit Code: 1" in said, said
    assert not (root / "ran").exists() and sandbox.active  # not run bare, and the sandbox is not turned off
    default = build_sandbox(SandboxRequest("true", "default"), [root], env)
    assert default.active  # the default sandbox does not fall back to no sandbox on a kept probe either


def test_the_filter_program_is_built_once_and_a_failure_is_not_kept(root: Path) -> None:
    """In a fresh process: libseccomp cannot be loaded, then can (a failure is tried again); then one program and
    one descriptor for every sandbox, made again when it was closed."""
    script = """
import ctypes, ctypes.util, os, subprocess, sys
real_cdll, real_find, real_popen = ctypes.CDLL, ctypes.util.find_library, subprocess.Popen
missing = [True]
class Loader(real_cdll):
    def __init__(self, name, *a, **k):
        if missing[0] and 'seccomp' in str(name): raise OSError('libseccomp.so.2: cannot open shared object file')
        super().__init__(name, *a, **k)
ctypes.CDLL = Loader
finds = []
ctypes.util.find_library = lambda name: finds.append(name) or real_find(name)
from gemini_tui.core.processes import unix_socket_filter as usf
from gemini_tui.core.processes.sandbox import build_sandbox, SandboxRequest
on = SandboxRequest('true', '--sandbox')
print('refused', 'Unix sockets' in (build_sandbox(on, [sys.argv[1]]).problem or ''))
print('refused again', 'Unix sockets' in (build_sandbox(on, [sys.argv[1]]).problem or ''))
missing[0] = False
a, b = build_sandbox(on, [sys.argv[1]]), build_sandbox(on, [sys.argv[1]])
print('built', a.problem is None or 'Unix sockets' not in a.problem, finds.count('seccomp'))
print('one descriptor', a.filter_fd == b.filter_fd, a.filter_fd is not None)
program = usf.unix_socket_filter()
os.close(a.filter_fd)
again = usf.filter_fd(program)
print('made again', open(f'/proc/self/fd/{again}', 'rb').read() == program)
"""
    done = subprocess.run([sys.executable, "-c", script, str(root)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["refused True", "refused again True", "built True 3",
                                        "one descriptor True True", "made again True"]


def test_the_held_program_cannot_be_rewritten_through_proc() -> None:
    """Every sandbox of a process reads one descriptor: another program of the user opening it through /proc (a
    hook, an MCP server) can neither write over it, truncate nor grow it, nor map it writable (the process's own
    descriptor included); the sandbox still reads it whole."""
    script = """
import os
from gemini_tui.core.processes import unix_socket_filter as usf
program = usf.unix_socket_filter()
fd = usf.filter_fd(program)
path = f'/proc/{os.getpid()}/fd/{fd}'
for how in (os.O_WRONLY, os.O_RDWR, os.O_WRONLY | os.O_TRUNC, os.O_WRONLY | os.O_APPEND):
    try:
        other = os.open(path, how)
    except PermissionError:
        print('refused'); continue
    try:
        os.write(other, b'\\0' * 8); print('written')
    except PermissionError:
        print('refused')
    finally:
        os.close(other)
# another way to the same effect: a shared writable mapping of the descriptor the process holds
import mmap
try:
    mapped = mmap.mmap(fd, len(program), mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    mapped[:8] = b'\\0' * 8; print('mapped')
except (PermissionError, OSError):
    print('refused')
print('whole', open(path, 'rb').read() == program)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["refused"] * 5 + ["whole True"]


def home_with(tmp_path: Path, config: str) -> Path:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / ".gitconfig").write_text(config)
    return home


IDENTITY_STEPS: list[tuple[str, Callable[[Path], object], str | None, bool]] = [
    # what changes, how, the name then seen, whether git was asked again
    ("nothing", lambda home: None, "One", False),
    ("~/.gitconfig", lambda home: (home / ".gitconfig").write_text(
        "[user]\n\tname = Two Longer\n\temail = two@example.invalid\n"), "Two Longer", True),
    ("nothing again", lambda home: None, "Two Longer", False),
    ("the XDG file", lambda home: ((home / ".config" / "git").mkdir(parents=True),
                                   (home / ".config" / "git" / "config").write_text("[core]\n\tpager = cat\n")),
     "Two Longer", True),
    ("~/.gitconfig, same size", lambda home: (home / ".gitconfig").write_text(
        "[user]\n\tname = Two Shorter\n\temail = two@example.invalid\n"), "Two Shorter", True),
]


@pytest.mark.skipif(REAL_GIT is None, reason="git is not installed")
def test_the_git_identity_is_asked_again_only_when_a_file_it_came_from_changed(tmp_path: Path) -> None:
    assert REAL_GIT is not None
    home = home_with(tmp_path, "[user]\n\tname = One\n\temail = one@example.invalid\n")
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    log = tmp_path / "git.log"
    logging_program(bin_folder / "git", REAL_GIT, log)
    env = {"HOME": str(home), "PATH": f"{bin_folder}:{os.environ.get('PATH', '/usr/bin:/bin')}", "LANG": "C.UTF-8"}
    assert git_identity(env)["GIT_AUTHOR_NAME"] == "One" and starts(log) == 1
    asked = 1
    for change, step, name, again in IDENTITY_STEPS:
        step(home)
        found = git_identity(env)
        asked += again
        assert (change, found.get("GIT_AUTHOR_NAME"), starts(log)) == (change, name, asked)
    other = {**env, "HOME": str(tmp_path)}  # another home: asked, and nobody there
    assert git_identity(other) == {} and starts(log) == asked + 1
