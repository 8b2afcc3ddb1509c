"""Processes room: what a command changed in the places that run or steer code later, found after it ran and put
back from a snapshot taken before it.

The places: every repository's (the root's, each nested one's) `.git/config`, `.git/hooks`, `.git/info`, the
submodules' configs and hooks under `.git/modules`, the `core.hooksPath` folder, `.gitmodules`, the gitlinks of the
index, `.husky/` and `.githooks/`; each root's `.gemini/`; context files at any depth; and in the home the shell
start-up files, `~/.gitconfig` and `~/.ssh`. Fingerprints are `stat` results (inode, size, times, mode), so a
command costs a few thousand `stat` calls, not reads: contents are read only when a fingerprint changed while no
command ran (the new state is the user's). The folders of each root are listed once and then only re-listed
where a folder's own times changed (an entry was added, removed or renamed in it), which is how a new nested
repository or a new context file deep in the tree is found. Where inotify works, the listed folders and the watched
paths are watched (change_watch.py), and a command costs a read of its events and a `stat` of what they name;
whenever the events cannot say for sure (a lost event, a folder renamed, no watches left), everything is looked at.

Putting back: a changed or deleted file gets its old bytes again (written beside it and renamed over); a new one,
or a link where a file or folder was, is renamed aside (`<name>.refused-<pid>-<n>`: kept, never deleted), and a
new repository's config with it. What was done is a line each, for the user and the model."""

from __future__ import annotations

import os
import stat
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gemini_tui.core.processes.change_watch import ChangeWatch
from gemini_tui.core.processes.sandbox_places import HOME_STARTUP, HOOK_FOLDERS, hooks_path

HOME_WATCHED = (*HOME_STARTUP, ".ssh")
# folders below a root that are not listed: git's own (watched by name instead) and the usual trees of
# installed packages, whose context files no tool reads
NOT_LISTED = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache",
                        ".pytest_cache", ".ruff_cache", "target", ".cache"})
MAX_FOLDERS = 50_000  # a tree bigger than this is listed this far (said in docs/sandbox.md)
MAX_FILE_BYTES = 1 << 20  # a protected file bigger than this is watched, not kept (it is never put back)
GITLINK_MODE = 0o160000
WATCH_FROM = 400

Fingerprint = tuple[int, int, int, int, int] | None  # (mode, inode, size, mtime, ctime); None: absent


def fingerprint(path: Path | str) -> Fingerprint:
    try:
        found = os.lstat(path)
    except OSError:
        return None
    return (found.st_mode, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


@dataclass
class _Kept:
    """One watched path as it was: its fingerprint, and its bytes (files) or link target (links)."""

    print: Fingerprint
    data: bytes | None = None
    target: str | None = None


@dataclass
class Change:
    path: Path
    what: str  # "changed", "created", "deleted", "became a link"
    undone: str | None = None  # what was done about it (None: kept, as approved)

    def line(self) -> str:
        return f"{self.path} {self.what}" + (f": {self.undone}" if self.undone else " (kept: approved)")


@dataclass
class ProtectedSnapshot:
    """The fingerprints of the protected places of `roots` and `home`, taken by `before()` and compared by
    `after()`; kept between commands so that each costs only `stat` calls."""

    roots: Sequence[Path]
    home: Path | None = None
    context_names: Sequence[str] = ("GEMINI.md",)
    folders: dict[str, Fingerprint] = field(default_factory=dict)  # every listed folder of the roots
    repos: set[Path] = field(default_factory=set)  # the worktrees holding a `.git` folder
    contexts: set[Path] = field(default_factory=set)  # context files found while listing
    gitfiles: set[Path] = field(default_factory=set)  # worktrees whose `.git` is a file (a submodule's, a worktree's)
    kept: dict[Path, _Kept] = field(default_factory=dict)
    gitlinks: dict[Path, tuple[Fingerprint, frozenset[bytes]]] = field(default_factory=dict)  # index -> links
    watching: bool = True  # False: no inotify, every path is looked at each time (and where inotify is missing)
    # inotify is used from this many looked-at paths on (a smaller tree is looked at whole in well under a
    # millisecond, and inotify instances are few: 128 for each user on most systems)
    watch_from: int = WATCH_FROM
    looked: int = 0  # the paths fingerprinted by the last before() or after()
    _listed: tuple[Path, ...] = ()
    _watch: list[tuple[str, Path]] | None = None
    _watch_names: dict[str, Path] = field(default_factory=dict)
    _indexes_seen: list[tuple[str, Path]] = field(default_factory=list)
    _change: ChangeWatch | None = None
    _targets: set[str] = field(default_factory=set)  # what is watched: folders, watched paths and their folders
    _always: set[str] = field(default_factory=set)  # paths no watch covers (not there, nor their folder)
    _recheck: set[str] = field(default_factory=set)  # watched since their fingerprint was taken: looked at again
    _lists_changed: bool = True

    def close(self) -> None:
        """Gives the watches back (the snapshot then looks at everything, as without inotify)."""
        if self._change is not None:
            self._change.close()

    # -- the two moments ---------------------------------------------------------------------------------------
    def before(self) -> None:
        """The state now is the baseline: what changed since the last command is the user's own doing."""
        self.looked = 0
        dirty = self._dirty()
        roots = tuple(Path(root) for root in self.roots)
        if roots != self._listed:  # the first time, or /directory add widened them
            for root in roots:
                if str(root) not in self.folders:
                    self._list(root)
            self._listed = roots
            self._watch = None
            dirty = None
        self._refresh_listing(dirty)
        for path in self._moved(dirty):
            self.kept[path] = _read(path, self._print(path))
        for name, index in self._index_list():
            if dirty is not None and name not in dirty and index in self.gitlinks:
                continue
            now = self._print(name)
            if index not in self.gitlinks or self.gitlinks[index][0] != now:
                self.gitlinks[index] = (now, _gitlinks(index))
        self._sync(dirty)

    def after(self, undo: bool) -> list[Change]:
        """What the command changed; put back unless `undo` is False (the user approved it). The baseline
        becomes the state after."""
        self.looked = 0
        dirty = self._dirty()
        changes: list[Change] = []
        old_repos = set(self.repos)
        self._refresh_listing(dirty)
        new_repos = self.repos - old_repos - {Path(r) for r in self.roots}
        for repo in sorted(new_repos):
            config = repo / ".git" / "config"
            if os.path.lexists(config):
                changes.append(Change(config, "created (a new repository)",
                                      _set_aside(config, "its config") if undo else None))
        moved = set(self._moved(dirty))
        if self._watch is None or moved:  # something changed: also what is no longer watched (a folder gone)
            self._watch = None
            watched = {path for _, path in self._watch_list()}
            moved |= {path for path in self.kept if path not in watched}
        for path in sorted(moved):
            seen = self.kept.get(path)
            now = self._print(path)
            if seen is not None and seen.print == now:
                continue
            if seen is None or seen.print is None:
                if now is None or any(c.path == path for c in changes):
                    self.kept[path] = _read(path, fingerprint(path))  # absent, or reported with its repository
                    continue
                if any(path.is_relative_to(repo / ".git") for repo in new_repos):
                    self.kept[path] = _read(path, now)
                    continue  # the rest of a new repository's .git: its config is what git would run
                what = "created" if not stat.S_ISLNK(now[0]) else "created as a link"
                changes.append(Change(path, what, _set_aside(path, "it") if undo else None))
            elif now is None:
                changes.append(Change(path, "deleted", _put_back(path, seen) if undo else None))
            elif stat.S_ISLNK(now[0]) and not stat.S_ISLNK(seen.print[0]):
                changes.append(Change(path, "became a link",
                                      (_set_aside(path, "the link") + "; " + _put_back(path, seen)) if undo else None))
            elif stat.S_ISDIR(now[0]):
                self.kept[path] = _read(path, now)  # a folder's own times: its entries are watched one by one
                continue
            elif seen.data is not None and _same_bytes(path, seen.data):
                self.kept[path] = _read(path, now)  # touched, not changed
                continue
            else:
                changes.append(Change(path, "changed", _put_back(path, seen) if undo else None))
            self.kept[path] = _read(path, fingerprint(path))
        if changes:
            self._watch = None
        for name, index in self._index_list():
            if dirty is not None and name not in dirty and index in self.gitlinks:
                continue
            now = self._print(name)
            seen_links = self.gitlinks.get(index)
            if seen_links is not None and seen_links[0] == now:
                continue
            links = _gitlinks(index)
            for link in sorted(links - (seen_links[1] if seen_links else frozenset())):
                where = index.parent.parent / link.decode("utf-8", "replace")
                config = where / ".git" / "config"
                done = None
                if undo and os.path.lexists(config) and not any(c.path == config for c in changes):
                    done = _set_aside(config, "the linked repository's config")
                changes.append(Change(where, "added to the index as a gitlink (a nested repository)",
                                      done or ("its config was set aside" if undo else None)))
            self.gitlinks[index] = (now, links)
        self._sync(dirty)
        return changes

    # -- the cached lists: rebuilt only when something changed ----------------------------------------------------
    def _refresh_listing(self, dirty: set[str] | None) -> None:
        if dirty is None:
            changed = [folder for folder, seen in self.folders.items() if self._print(folder) != seen]
        else:
            folders = self.folders
            changed = [folder for folder in dirty if folder in folders and self._print(folder) != folders[folder]]
        found = (set(self.repos), set(self.contexts), set(self.gitfiles))
        for folder in changed:
            self._relist(Path(folder))
        if changed:
            self._lists_changed = True
            if found != (self.repos, self.contexts, self.gitfiles):
                self._watch = None  # what is watched follows the repositories and context files found

    def _watch_list(self) -> list[tuple[str, Path]]:
        if self._watch is None:
            self._watch = [(str(path), path) for path in dict.fromkeys(self._watched())]
            self._watch_names = dict(self._watch)
            self._lists_changed = True
            self._indexes_seen = [(str(index), index) for index in self._indexes()]
        return self._watch

    def _index_list(self) -> list[tuple[str, Path]]:
        self._watch_list()
        return self._indexes_seen

    def _moved(self, dirty: set[str] | None) -> list[Path]:
        """The watched paths whose fingerprint is not the kept one; when any, the watch list is made again (a
        changed folder or config can change what is watched) and asked once more. With `dirty`, only the paths
        it names and the newly watched ones can have moved."""
        kept = self.kept
        fresh = self._watch is None
        entries = self._watch_list()
        if dirty is not None and not fresh:
            names = self._watch_names
            entries = [(name, names[name]) for name in dirty if name in names]
        elif dirty is not None:
            entries = [(name, path) for name, path in entries if name in dirty or path not in kept]
        moved = [path for name, path in entries
                 if (seen := kept.get(path)) is None or seen.print != self._print(name)]
        if moved:
            self._watch = None
            entries = self._watch_list()
            if dirty is not None:
                entries = [(name, path) for name, path in entries if name in dirty or path not in kept]
            moved = [path for name, path in entries
                     if (seen := kept.get(path)) is None or seen.print != self._print(name)]
        return moved

    # -- watching: which paths the kernel says may have changed ---------------------------------------------------
    def _print(self, path: Path | str) -> Fingerprint:
        self.looked += 1
        return fingerprint(path)

    def _dirty(self) -> set[str] | None:
        """The paths that may have changed since the last look, or None: look at everything."""
        if not self.watching or self._change is None:
            return None
        changed = self._change.changed()
        if changed is None:
            return None
        changed |= self._always
        changed |= self._recheck
        self._recheck = set()
        return changed

    def _sync(self, dirty: set[str] | None) -> None:
        """Watches what is to be watched now: everything after a full look, else what moved or is new."""
        if not self.watching:
            return
        if self._change is None:
            if len(self.folders) + len(self._watch_list()) < self.watch_from:
                return
            self._change = ChangeWatch.open()
            if self._change is None:
                self.watching = False
                return
        targets = self._targets
        if self._lists_changed or dirty is None:
            targets = set(self.folders)
            for name, _ in (*self._watch_list(), *self._index_list()):
                targets.add(name)
                targets.add(os.path.dirname(name))
            self._lists_changed = False
        if dirty is None:
            added, absent = self._change.watch(targets, again=True)
        else:
            added, absent = self._change.watch(targets - self._targets) if targets is not self._targets else ([], [])
            again = self._change.watch((dirty | self._always) & targets, again=True)
            added += again[0]
            absent += again[1]
        self._targets = targets
        if not self._change.working:
            self.watching = False
            return
        self._recheck.update(added)
        self._always = {path for path in absent if not self._change.watching(os.path.dirname(path))}

    # -- what is watched ---------------------------------------------------------------------------------------
    def _watched(self) -> Iterable[Path]:
        for repo in self.repos:
            git = repo / ".git"
            yield git / "config"
            for name in ("hooks", "info"):
                yield from _folder(git / name)
            modules = git / "modules"
            if modules.is_dir():
                for config in modules.glob("**/config"):
                    yield config
                    yield from _folder(config.parent / "hooks")
            yield repo / ".gitmodules"
            for name in HOOK_FOLDERS:
                yield from _folder(repo / name, deep=True)
            hooks = hooks_path(repo) if os.path.lexists(git / "config") else None
            if hooks is not None:
                yield from _folder(hooks)
        for root in self.roots:
            yield from _folder(Path(root) / ".gemini", deep=True)
            for name in self.context_names:
                yield Path(root) / name
        yield from self.contexts
        if self.home is not None:
            for name in HOME_WATCHED:
                yield from _folder(self.home / name, deep=True)

    def _indexes(self) -> list[Path]:
        return [repo / ".git" / "index" for repo in self.repos]

    def _list(self, folder: Path) -> None:
        """Lists `folder` and everything below it that is listed (see NOT_LISTED)."""
        pending = [folder]
        while pending and len(self.folders) < MAX_FOLDERS:
            current = pending.pop()
            self.folders[str(current)] = fingerprint(current)
            pending += self._entries(current)

    def _relist(self, folder: Path) -> None:
        """A folder whose entries changed: its new sub-folders listed, its gone ones forgotten."""
        now = fingerprint(folder)
        if now is None or not stat.S_ISDIR(now[0]):
            name = str(folder)
            for gone in [f for f in self.folders if f == name or f.startswith(name + os.sep)]:
                del self.folders[gone]
            self.repos = {r for r in self.repos if not r.is_relative_to(folder)}
            self.contexts = {c for c in self.contexts if not c.is_relative_to(folder)}
            self.gitfiles = {g for g in self.gitfiles if not g.is_relative_to(folder)}
            return
        self.folders[str(folder)] = now
        for sub in self._entries(folder):
            if str(sub) not in self.folders:
                self._list(sub)

    def _entries(self, folder: Path) -> list[Path]:
        """The sub-folders of `folder` to list; notes the repositories and context files in it."""
        subs: list[Path] = []
        names = set(self.context_names)
        self.repos.discard(folder)
        self.gitfiles.discard(folder)
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.name == ".git":
                        if entry.is_dir(follow_symlinks=False):
                            self.repos.add(folder)
                        else:
                            self.gitfiles.add(folder)
                    elif entry.name in names:
                        self.contexts.add(Path(entry.path))
                    elif entry.is_dir(follow_symlinks=False) and entry.name not in NOT_LISTED:
                        subs.append(Path(entry.path))
        except OSError:
            pass
        return subs


def _folder(path: Path, deep: bool = False) -> Iterable[Path]:
    """`path` and, when it is a real folder, its files (and with `deep` its sub-folders' files), not following
    links. Git's sample hooks are never run: left out."""
    yield path
    if os.path.islink(path):
        return  # a link's target is not the protected place: the link itself is what changed
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.name.endswith(".sample"):
                    continue
                if deep and entry.is_dir(follow_symlinks=False):
                    yield from _folder(Path(entry.path), deep=True)
                else:
                    yield Path(entry.path)
    except OSError:
        return


def _read(path: Path, print_: Fingerprint) -> _Kept:
    if print_ is None:
        return _Kept(None)
    if stat.S_ISLNK(print_[0]):
        try:
            return _Kept(print_, target=os.readlink(path))
        except OSError:
            return _Kept(print_)
    if stat.S_ISREG(print_[0]) and print_[2] <= MAX_FILE_BYTES:
        try:
            with open(path, "rb") as file:
                return _Kept(print_, data=file.read())
        except OSError:
            return _Kept(print_)
    return _Kept(print_)


def _same_bytes(path: Path, data: bytes) -> bool:
    try:
        with open(path, "rb") as file:
            return file.read(MAX_FILE_BYTES + 1) == data
    except OSError:
        return False


_aside_count = 0


def _set_aside(path: Path, what: str) -> str:
    global _aside_count
    _aside_count += 1
    aside = path.with_name(f"{path.name}.refused-{os.getpid()}-{_aside_count}")
    try:
        os.rename(path, aside)
    except OSError as exc:
        return f"{what} could not be set aside ({exc.strerror}): remove it yourself"
    return f"{what} was set aside as {aside.name}"


def _put_back(path: Path, seen: _Kept) -> str:
    """The old state of `path` again: a folder made, a link remade, a file's bytes and mode written back."""
    assert seen.print is not None
    mode = seen.print[0]
    try:
        if os.path.lexists(path) and (os.path.islink(path) or stat.S_ISDIR(mode) != os.path.isdir(path)):
            _set_aside(path, "what stood there")
        if stat.S_ISDIR(mode):
            os.makedirs(path, exist_ok=True)
            return "the folder was made again"
        if stat.S_ISLNK(mode) and seen.target is not None:
            temporary = path.with_name(f".{path.name}.restoring-{os.getpid()}")
            os.symlink(seen.target, temporary)
            os.replace(temporary, path)
            return "the link was put back"
        if seen.data is None:
            return "it was too big to keep: look at it yourself"
        os.makedirs(path.parent, exist_ok=True)
        temporary = path.with_name(f".{path.name}.restoring-{os.getpid()}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, stat.S_IMODE(mode))
        try:
            os.write(fd, seen.data)
            os.fchmod(fd, stat.S_IMODE(mode))
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except OSError as exc:
        return f"it could not be put back ({exc.strerror})"
    return "it was put back as it was"


def _gitlinks(index: Path) -> frozenset[bytes]:
    """The paths of the index's gitlinks (nested repositories recorded as commits), read from the index file
    (version 2, 3 or 4 without path compression for v4: then nothing is claimed)."""
    try:
        data = index.read_bytes()
    except OSError:
        return frozenset()
    if len(data) < 12 or data[:4] != b"DIRC":
        return frozenset()
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3):
        return frozenset()
    links: set[bytes] = set()
    offset = 12
    for _ in range(count):
        if offset + 62 > len(data):
            break
        mode = struct.unpack(">I", data[offset + 24:offset + 28])[0]
        flags = struct.unpack(">H", data[offset + 60:offset + 62])[0]
        header = 62
        if version == 3 and flags & 0x4000:
            header += 2
        end = data.find(b"\0", offset + header)
        if end < 0:
            break
        name = data[offset + header:end]
        if mode == GITLINK_MODE:
            links.add(name)
        length = end - offset + 1
        offset += (length + 7) // 8 * 8
    return frozenset(links)
