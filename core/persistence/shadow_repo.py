"""Checkpoints: snapshots of the workspace in a shadow git repository outside it (`~/.gemini/history/<project>`).

The shadow repository has its own git directory, index and configuration; the user's `.git` is never read or
written (git itself never descends into a `.git`), no hook can run (hooksPath is /dev/null) and neither the
system's nor the user's git configuration is read (they could name programs to run). A snapshot holds every
file git would not ignore, tracked or not. The full permission bits of files whose mode git cannot hold (it
keeps only the executable bit) ride along in the commit message.

This module only reads the workspace; putting files back is done by a `FileRestorer` the wiring provides (the
one confined write path of tools/)."""

from __future__ import annotations

import json
import logging
import os
import shutil
import stat
import subprocess
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from gemini_tui.core.ground.text_boundary import json_text

log = logging.getLogger(__name__)
REF = "refs/heads/checkpoints"
# One lock per shadow repository in this process: several sessions of one window in the same folder, and a
# session's subagents running at once, share its index; two `git add`/`write-tree` at once fail on index.lock.
_LOCKS: dict[Path, threading.RLock] = {}
_LOCKS_GUARD = threading.Lock()


# The checkpoint commit this process last wrote to each shadow repository: the next one's parent without asking
# git for it, unless the ref moved (another process), which `update-ref`'s old-value check finds.
_TIPS: dict[Path, str] = {}


def _lock_of(git_dir: Path) -> threading.RLock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(Path(os.path.abspath(git_dir)), threading.RLock())
_SAFE_CONFIG = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.autocrlf=false",
                "-c", "core.safecrlf=false", "-c", "core.symlinks=true", "-c", "core.quotePath=false",
                "-c", "commit.gpgSign=false", "-c", "user.name=gemini-tui", "-c", "user.email=gemini-tui@localhost",
                "-c", "gc.auto=0", "-c", "core.untrackedCache=true", "-c", "core.fileMode=true",
                "-c", "core.bigFileThreshold=64m", "-c", "filter.lfs.process=", "-c", "diff.external=")


class CheckpointError(Exception):
    """Checkpoints cannot be taken or used; the message says why and what still works."""


class FileRestorer(Protocol):
    """Writes into the workspace through its confining gate (tools/ provides it)."""

    def write(self, relative: str, data: bytes, mode: int | None) -> None: ...
    def symlink(self, relative: str, target: str) -> None: ...
    def delete(self, relative: str) -> None: ...


@dataclass(frozen=True)
class FileChange:
    """One file a restore would change: `added` since the checkpoint (it goes), `deleted` (it comes back),
    `modified` (its content or mode goes back)."""

    path: str
    status: str  # "added" | "deleted" | "modified"


@dataclass(frozen=True)
class RestorePlan:
    """What restoring a checkpoint does, before anything is written."""

    commit: str
    changes: tuple[FileChange, ...]
    changed_by_hand: tuple[str, ...] = ()  # files changed outside the agent since its last change
    hand_diff: str = ""  # the diff of those changes, to show before asking


@dataclass
class ShadowRepo:
    """The shadow git repository of one workspace."""

    root: Path
    git_dir: Path
    _lock: threading.RLock = field(init=False, repr=False)
    _known_files: set[str] | None = field(default=None, repr=False)  # the files of the last snapshot
    # checked whole, and no git failed here since: a snapshot does not start one more git only to check it again
    # (one that fails on a repository damaged since is taken again after the full check, see snapshot)
    _sound: bool = field(default=False, repr=False)

    def __post_init__(self) -> None:
        self._lock = _lock_of(self.git_dir)

    @staticmethod
    def git_missing() -> str | None:
        """Why checkpoints cannot work here (no git on PATH), or None."""
        if shutil.which("git") is None:
            return "git was not found on PATH, so no checkpoints are taken (/restore and /undo have nothing to use)."
        return None

    # -- running git ---------------------------------------------------------------------------------------------
    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(GIT_DIR=str(self.git_dir), GIT_WORK_TREE=str(self.root), GIT_CONFIG_NOSYSTEM="1",
                   GIT_CONFIG_GLOBAL="/dev/null", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
        return env

    def git(self, *args: str, input: bytes | None = None, check: bool = True) -> bytes:
        try:
            done = subprocess.run(["git", *_SAFE_CONFIG, f"--git-dir={self.git_dir}", f"--work-tree={self.root}",
                                   *args], input=input, capture_output=True, env=self._env(), cwd=self.root,
                                  timeout=120)
        except FileNotFoundError as exc:
            raise CheckpointError(self.git_missing() or str(exc)) from exc
        except subprocess.TimeoutExpired as exc:
            raise CheckpointError(f"git {args[0]} took longer than two minutes; checkpoint skipped.") from exc
        if check and done.returncode != 0:
            self._sound = False
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise CheckpointError(f"git {args[0]} failed in the shadow repository {self.git_dir}: "
                                  f"{message[-1] if message else done.returncode}")
        return done.stdout

    def ensure(self) -> None:
        """Creates the repository, or replaces a damaged one (kept aside, never deleted)."""
        if (self.git_dir / "HEAD").is_file():
            if self._sound or self._whole():
                self._sound = True
                return
            aside = self.git_dir.with_name(f"{self.git_dir.name}.damaged-{int(time.time())}")
            self.git_dir.rename(aside)
            log.warning("the shadow repository %s was damaged; kept as %s", self.git_dir, aside)
        _TIPS.pop(Path(os.path.abspath(self.git_dir)), None)
        self.git_dir.mkdir(parents=True, exist_ok=True)
        self.git("init", "--quiet")
        (self.git_dir / "info").mkdir(exist_ok=True)
        (self.git_dir / "info" / "exclude").write_text(".git\n")
        self._sound = True

    def _whole(self) -> bool:
        check = subprocess.run(["git", *_SAFE_CONFIG, f"--git-dir={self.git_dir}", "rev-parse", "--git-dir"],
                               capture_output=True, env=self._env(), cwd=self.root)
        return check.returncode == 0

    # -- snapshots -----------------------------------------------------------------------------------------------
    def tree_now(self) -> str:
        """The workspace as a git tree (every file git does not ignore)."""
        with self._lock:
            self.git("add", "--all", "--ignore-errors", check=False)
            return self.git("write-tree").decode().strip()

    def snapshot(self, message: dict[str, object]) -> str:
        """Commits the workspace as it is now; returns the commit."""
        with self._lock:
            check_skipped = self._sound
            try:
                return self._snapshot(message)
            except CheckpointError:
                self._sound = False
                if not check_skipped or self._whole():
                    raise
                return self._snapshot(message)  # damaged since it was checked: replaced now, and taken again

    def _snapshot(self, message: dict[str, object]) -> str:
        with self._lock:
            self.ensure()
            # git adds in its own process while the permission bits of the files known so far are read here
            adding = subprocess.Popen(["git", *_SAFE_CONFIG, f"--git-dir={self.git_dir}", f"--work-tree={self.root}",
                                       "add", "--all", "--ignore-errors"], env=self._env(), cwd=self.root,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            known = self._known_files
            modes = self._odd_modes(known) if known is not None else {}
            adding.wait()
            tree = self.git("write-tree").decode().strip()
            files = self._files()
            modes.update(self._odd_modes(files if known is None else [f for f in files if f not in known]))
            self._known_files = set(files)
            body = json_text({**message, "modes": modes}).encode()
            key = Path(os.path.abspath(self.git_dir))
            tip = _TIPS.get(key)
            if tip is not None:
                try:
                    commit = self._commit(tree, tip, body)
                    self.git("update-ref", REF, commit, tip)  # only if the ref is still where this process left it
                    _TIPS[key] = commit
                    return commit
                except CheckpointError:
                    _TIPS.pop(key, None)  # moved by another process: its tip is read below
            parent = self.git("rev-parse", "--verify", "--quiet", REF, check=False).decode().strip()
            commit = self._commit(tree, parent, body)
            self.git("update-ref", REF, commit)
            _TIPS[key] = commit
            return commit

    def _commit(self, tree: str, parent: str, body: bytes) -> str:
        args = ["commit-tree", tree, "-F", "-"] + (["-p", parent] if parent else [])
        return self.git(*args, input=body).decode().strip()

    def _files(self) -> list[str]:
        return [name.decode("utf-8", "surrogateescape") for name in self.git("ls-files", "-z").split(b"\0") if name]

    def _odd_modes(self, paths: Iterable[str] | None = None) -> dict[str, int]:
        """Permission bits git cannot hold (anything but 644/755 on a file), by path."""
        odd: dict[str, int] = {}
        for path in self._files() if paths is None else paths:
            try:
                st = os.lstat(self.root / path)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) not in (0o644, 0o755):
                odd[path] = stat.S_IMODE(st.st_mode)
        return odd

    def modes_of(self, commit: str) -> dict[str, int]:
        try:
            body = json.loads(self.git("log", "-1", "--format=%B", commit).decode())
            return {str(k): int(v) for k, v in dict(body.get("modes", {})).items()}
        except (ValueError, TypeError, AttributeError):
            return {}

    def has(self, commit: str) -> bool:
        if not (self.git_dir / "HEAD").is_file():
            return False
        out = subprocess.run(["git", *_SAFE_CONFIG, f"--git-dir={self.git_dir}", "cat-file", "-e",
                              f"{commit}^{{commit}}"], capture_output=True, env=self._env(), cwd=self.root)
        return out.returncode == 0

    # -- comparing and restoring ---------------------------------------------------------------------------------
    def changes(self, old: str, new: str) -> list[FileChange]:
        """What changed from `old` to `new` (added, deleted or modified in `new`)."""
        out = self.git("diff-tree", "-r", "--no-renames", "--name-status", "-z", old, new)
        items = out.split(b"\0")
        words = {"A": "added", "D": "deleted", "M": "modified", "T": "modified"}
        changes = []
        for status, name in zip(items[0::2], items[1::2], strict=False):
            if name:
                changes.append(FileChange(name.decode("utf-8", "surrogateescape"),
                                          words.get(status.decode()[:1], "modified")))
        return changes

    def diff(self, old: str, new: str, paths: Iterable[str] = ()) -> str:
        return self.git("diff-tree", "-r", "-p", "--no-renames", "--no-color", old, new, "--", *paths).decode(
            "utf-8", "replace")

    def plan(self, commit: str, last_agent_state: str | None) -> RestorePlan:
        """What restoring `commit` would change now, and which of those files were changed by hand since the
        agent last changed anything (`last_agent_state`, a tree taken after its last change)."""
        with self._lock:
            if not self.has(commit):
                raise CheckpointError(f"Checkpoint {commit[:10]} is no longer in the shadow repository "
                                      f"{self.git_dir} (it was deleted or damaged); its files cannot be restored.")
            now = self.tree_now()
            changes = self.changes(commit, now)
            # permission bits git does not hold (0600 -> 0644) differ without any content change
            listed = {c.path for c in changes}
            then_modes, now_modes = self.modes_of(commit), self._odd_modes()
            for path in sorted(set(then_modes) | set(now_modes)):
                if path not in listed and then_modes.get(path) != now_modes.get(path) and (self.root / path).exists():
                    changes.append(FileChange(path, "modified"))
            by_hand: list[str] = []
            hand_diff = ""
            if last_agent_state is not None and self.has_tree(last_agent_state):
                touched = {c.path for c in changes}
                by_hand = [c.path for c in self.changes(last_agent_state, now) if c.path in touched]
                if by_hand:
                    hand_diff = self.diff(last_agent_state, now, by_hand)
            return RestorePlan(commit, tuple(changes), tuple(by_hand), hand_diff)

    def has_tree(self, tree: str) -> bool:
        out = subprocess.run(["git", *_SAFE_CONFIG, f"--git-dir={self.git_dir}", "cat-file", "-e", tree],
                             capture_output=True, env=self._env(), cwd=self.root)
        return out.returncode == 0

    def restore(self, plan: RestorePlan, files: FileRestorer) -> list[str]:
        """Puts every file of `plan` back as it was in its commit; returns the paths that could not be (with
        why). Nothing else in the workspace is touched."""
        with self._lock:
            modes = self.modes_of(plan.commit)
            entries = self._entries(plan.commit, [c.path for c in plan.changes if c.status != "added"])
            failed = []
            for change in plan.changes:
                try:
                    if change.status == "added":
                        files.delete(change.path)
                        continue
                    git_mode, blob = entries[change.path]
                    data = self.git("cat-file", "blob", blob)
                    if git_mode == "120000":
                        files.symlink(change.path, os.fsdecode(data))
                    else:
                        mode = modes.get(change.path, 0o755 if git_mode == "100755" else 0o644)
                        files.write(change.path, data, mode)
                except (OSError, KeyError, CheckpointError) as exc:
                    failed.append(f"{change.path}: {exc}")
            return failed

    def _entries(self, commit: str, paths: list[str]) -> dict[str, tuple[str, str]]:
        if not paths:
            return {}
        out = self.git("ls-tree", "-r", "-z", "--full-tree", commit)
        wanted = set(paths)
        found = {}
        for line in out.split(b"\0"):
            if not line:
                continue
            meta, _, name = line.partition(b"\t")
            path = name.decode("utf-8", "surrogateescape")
            if path in wanted:
                mode, _kind, blob = meta.decode().split(" ")
                found[path] = (mode, blob)
        return found
