"""Git worktrees a session can work in, as Gemini CLI 0.61 lays them out: `<project>/.gemini/worktrees/<name>` on
branch `worktree-<name>`, made with `git worktree add`. Opening one by name creates it or finds it again; listing
gives each one's branch and whether it holds changes. Nothing here deletes a worktree: Gemini CLI keeps every one
at exit, and so do we (the exit words say how to remove it by hand)."""

from __future__ import annotations

import os
import re
import shlex
import string
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from gemini_tui.core.workspace.worktree_place import WORKTREES_FOLDER

BRANCH_PREFIX = "worktree-"
NAME_MAX = 100  # characters; a branch name, a folder name and a terminal line all stay readable
# One folder level, a name git accepts as part of a branch: letters, digits, `.`, `_` and `-`, never starting with
# `.` or `-` (a hidden folder, an option); `..`, `.lock` and a final `.` are refused below, as git refuses them.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_GIT_TIMEOUT_S = 60


class WorktreeError(Exception):
    """A worktree could not be opened or listed; the message is meant for the user as it is."""


@dataclass(frozen=True)
class Worktree:
    """One worktree of a project: its name (the folder's), where it is and the branch it has checked out."""

    name: str
    path: Path
    branch: str | None  # None: a detached HEAD
    project_root: Path  # the main checkout it belongs to
    created: bool = False  # made by this call (False: found again)


@dataclass(frozen=True)
class WorktreeState:
    """A worktree and what it holds now: uncommitted changes (`git status --porcelain` lines) and commits on its
    branch that the main checkout's HEAD does not have."""

    worktree: Worktree
    changes: tuple[str, ...]
    ahead: int  # -1: not known (no commit to compare with)

    @property
    def dirty(self) -> bool:
        return bool(self.changes)

    def describe(self) -> str:
        """`clean`, `dirty: 2 changed files`, with `, 1 commit ahead` when its branch went on."""
        words = f"dirty: {_count(len(self.changes), 'changed file')}" if self.changes else "clean"
        if self.ahead > 0:
            words += f", {_count(self.ahead, 'commit')} ahead"
        return words


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


# -- names -------------------------------------------------------------------------------------------------------
def check_name(name: str) -> str:
    """`name` stripped, or WorktreeError saying why it cannot name a worktree (it becomes a folder under
    `.gemini/worktrees/` and part of a branch name, so nothing that could leave that folder or confuse git)."""
    name = name.strip()
    why = None
    if not name:
        why = "it is empty"
    elif len(name) > NAME_MAX:
        why = f"it is longer than {NAME_MAX} characters"
    elif "/" in name or "\\" in name or name in (".", ".."):
        why = "it would leave .gemini/worktrees/ (a name is one folder, without / or \\)"
    elif not _NAME.fullmatch(name):
        why = "use letters, digits, '.', '_' and '-', starting with a letter or a digit"
    elif ".." in name or name.endswith((".", ".lock")):
        why = "git refuses '..', a final '.' and '.lock' in a branch name"
    if why is not None:
        raise WorktreeError(f"Invalid worktree name {name!r}: {why}.")
    return name


def new_name(now: datetime | None = None) -> str:
    """A name for a worktree asked for without one, in Gemini CLI's form: the UTC time to the millisecond and four
    random letters or digits (`2026-11-27-19-15-56-123-k3x9`), so two started together still differ."""
    import secrets  # (with hashlib and hmac: not for the app's first frame, whose status line names a worktree)

    now = now or datetime.now(UTC)
    stamp = now.astimezone(UTC).strftime("%Y-%m-%d-%H-%M-%S-") + f"{now.microsecond // 1000:03d}"
    alphabet = string.ascii_lowercase + string.digits
    return f"{stamp}-{''.join(secrets.choice(alphabet) for _ in range(4))}"


def branch_for(name: str) -> str:
    return BRANCH_PREFIX + name


# -- finding the project --------------------------------------------------------------------------------------
def _git_env() -> dict[str, str]:
    """This process's environment without the `GIT_*` variables that would point git at another repository or
    index (a hook or a wrapper may have set them), never prompting, in the C locale so messages read the same."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    return env


def _git(folder: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, env=_git_env(),
                              timeout=_GIT_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except FileNotFoundError as exc:
        raise WorktreeError("git was not found on PATH; worktrees need it.") from exc
    except subprocess.TimeoutExpired as exc:
        raise WorktreeError(f"git {args[0]} took longer than {_GIT_TIMEOUT_S} s in {folder}.") from exc
    if check and done.returncode != 0:
        said = done.stderr.strip().removeprefix("fatal: ") or f"exit code {done.returncode}"
        raise WorktreeError(f"git {' '.join(args[:2])} failed in {folder}: {said}")
    return done


def project_root(folder: Path) -> Path:
    """The main checkout of the repository `folder` is in (also from inside one of its worktrees), where
    `.gemini/worktrees/` lives; WorktreeError when `folder` is in no git repository (or in a bare one)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise WorktreeError(f"{folder} is not a folder.")
    done = _git(folder, "rev-parse", "--path-format=absolute", "--git-common-dir", "--is-bare-repository",
                check=False)
    if done.returncode != 0:
        raise WorktreeError(f"{folder} is not in a git repository, so it has no worktrees (git init, or start "
                            "gemini-tui in a repository).")
    common, bare = done.stdout.splitlines()[:2]
    if bare.strip() == "true" or Path(common).name != ".git":
        # a bare repository (or a separate git dir) has no main checkout to put .gemini/worktrees in
        raise WorktreeError(f"{folder} is in a repository without a main checkout ({common}); worktrees are made "
                            "beside a main checkout.")
    return Path(common).parent.resolve()


def worktrees_folder(root: Path) -> Path:
    return Path(root).joinpath(*WORKTREES_FOLDER)


# -- listing ---------------------------------------------------------------------------------------------------
def _registered(root: Path) -> dict[Path, str | None]:
    """Every worktree git knows for the repository at `root`: its path and branch (None when detached)."""
    out = _git(root, "worktree", "list", "--porcelain").stdout
    found: dict[Path, str | None] = {}
    path: Path | None = None
    for line in out.splitlines():
        if line.startswith("worktree "):
            path = Path(line.removeprefix("worktree ")).resolve()
            found[path] = None
        elif line.startswith("branch ") and path is not None:
            found[path] = line.removeprefix("branch ").removeprefix("refs/heads/")
    return found


def list_worktrees(folder: Path) -> list[WorktreeState]:
    """The Gemini worktrees of the project `folder` is in (those under `.gemini/worktrees/` that git knows and
    that are there), by name, each with its changes; WorktreeError when `folder` is in no repository."""
    root = project_root(folder)
    base = worktrees_folder(root).resolve()
    head = _git(root, "rev-parse", "--verify", "-q", "HEAD", check=False).stdout.strip()
    states = []
    for path, branch in sorted(_registered(root).items()):
        if path.parent != base or not path.is_dir():
            continue
        worktree = Worktree(path.name, path, branch, root)
        states.append(state_of(worktree, head))
    return states


def state_of(worktree: Worktree, base_commit: str = "") -> WorktreeState:
    """What `worktree` holds now; `ahead` counts its commits that `base_commit` (the main checkout's HEAD when
    not given) lacks."""
    changes = tuple(line for line in _git(worktree.path, "status", "--porcelain").stdout.splitlines() if line)
    base_commit = base_commit or _git(worktree.project_root, "rev-parse", "--verify", "-q", "HEAD",
                                      check=False).stdout.strip()
    ahead = -1
    if base_commit:
        counted = _git(worktree.path, "rev-list", "--count", f"{base_commit}..HEAD", check=False)
        if counted.returncode == 0 and counted.stdout.strip().isdigit():
            ahead = int(counted.stdout.strip())
    return WorktreeState(worktree, changes, ahead)


# -- opening ---------------------------------------------------------------------------------------------------
def open_worktree(folder: Path, name: str | None = None) -> Worktree:
    """The worktree `name` of the project `folder` is in: found again when git already has it at
    `.gemini/worktrees/<name>`, else made there with `git worktree add` on branch `worktree-<name>` (a new branch
    from the main checkout's HEAD, or that branch as it is when it exists). No name: a new one is made up.
    WorktreeError (its message for the user) when the name is invalid, the folder is in no repository, the
    repository has no commit yet, or git refuses."""
    root = project_root(folder)
    name = new_name() if name is None or not name.strip() else check_name(name)
    path = worktrees_folder(root) / name
    registered = _registered(root)
    resolved = path.resolve()
    if resolved in registered:
        if not resolved.is_dir():
            raise WorktreeError(f"Worktree {name!r} is registered at {path} but its folder is gone; "
                                f"`git worktree prune` forgets it, then it can be made again.")
        keep_out_of_main_checkout(root)  # one made by Gemini CLI, or before this was done
        return Worktree(name, resolved, registered[resolved], root)
    if path.exists() or path.is_symlink():
        raise WorktreeError(f"{path} exists but is not a worktree of this repository; move it away or choose "
                            "another name.")
    if not _git(root, "rev-parse", "--verify", "-q", "HEAD", check=False).stdout.strip():
        raise WorktreeError(f"The repository at {root} has no commit yet; a worktree starts from one "
                            "(commit once, then try again).")
    branch = branch_for(name)
    exists = _git(root, "rev-parse", "--verify", "-q", f"refs/heads/{branch}", check=False).returncode == 0
    # `--` would end the options, but `worktree add` reads its path and branch after them anyway; the checked name
    # cannot start with `-`, and the path is absolute
    arguments: Sequence[str] = (str(path), branch) if exists else (str(path), "-b", branch)
    _git(root, "worktree", "add", "--quiet", *arguments)
    keep_out_of_main_checkout(root)
    return Worktree(name, path.resolve(), branch, root, created=True)


EXCLUDE_LINE = "/" + "/".join(WORKTREES_FOLDER) + "/"


def keep_out_of_main_checkout(root: Path) -> None:
    """Adds `/.gemini/worktrees/` to the repository's own exclude file (`.git/info/exclude`, never committed), so
    the main checkout's `git status` stays clean and `git add -A` there does not record a worktree as an embedded
    repository. The file's other lines and line endings are kept; it is replaced whole, never half written. A
    failure only leaves the worktrees visible to `git status`, so it is not an error."""
    exclude = root / ".git" / "info" / "exclude"
    try:
        data = exclude.read_bytes() if exclude.is_file() else b""
        lines = data.decode("utf-8", errors="surrogateescape").splitlines()
        if EXCLUDE_LINE in (line.strip() for line in lines):
            return
        newline = b"\r\n" if b"\r\n" in data else b"\n"
        text = data + (newline if data and not data.endswith(b"\n") else b"") + EXCLUDE_LINE.encode() + newline
        exclude.parent.mkdir(parents=True, exist_ok=True)
        temporary = exclude.with_name(f".{exclude.name}.{os.getpid()}.tmp")
        temporary.write_bytes(text)
        os.replace(temporary, exclude)
    except OSError:
        return


def leaving_words(state: WorktreeState, session_id: str | None, program: str = "gemini-tui") -> str:
    """What a session that worked in a worktree says as it ends: the worktree is kept (with its state), how to go
    on there, and how to remove it by hand (git refuses a dirty one without `--force`, which is the point)."""
    path = shlex.quote(str(state.worktree.path))
    branch = state.worktree.branch or "a detached HEAD"
    resume = f"cd {path} && {program}" + (f" --resume {shlex.quote(session_id)}" if session_id else "")
    return "\n".join((
        f"Worktree {state.worktree.name} kept at {state.worktree.path} (branch {branch}, {state.describe()}).",
        f"To go on working in it: {resume}",
        f"To remove it: git worktree remove {path}" + (" --force (this drops its uncommitted changes)"
                                                          if state.dirty else ""),
    ))
