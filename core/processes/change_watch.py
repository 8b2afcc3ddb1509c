"""Processes room: which of the watched paths may have changed since last asked, from the kernel's inotify events,
so that the check after a command looks again only there; `None` whenever that cannot be told for sure.

A folder is watched for its entries (made, removed, renamed) and its own attributes; a file (or link, not
followed) for its bytes and attributes, on its inode, so a write through a hard link elsewhere is seen too. What
makes the answer `None` (the caller then looks at everything, as without watching): a lost event (the queue
overflowed), a watched folder removed or renamed (the names below it no longer say where things are), an event of
a watch nobody knows, or inotify missing, out of watches or out of instances."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from inotify_simple import INotify

# inotify(7)'s numbers (the same on every Linux architecture)
MODIFY, ATTRIB, MOVED_FROM, MOVED_TO, CREATE, DELETE = 0x2, 0x4, 0x40, 0x80, 0x100, 0x200
DELETE_SELF, MOVE_SELF, UNMOUNT, Q_OVERFLOW, IGNORED = 0x400, 0x800, 0x2000, 0x4000, 0x8000
DONT_FOLLOW, ISDIR = 0x02000000, 0x40000000
ENTRIES = CREATE | DELETE | MOVED_FROM | MOVED_TO
SELF = DELETE_SELF | MOVE_SELF
FOLDER_MASK = ENTRIES | ATTRIB | SELF | DONT_FOLLOW
FILE_MASK = MODIFY | ATTRIB | SELF | DONT_FOLLOW


class ChangeWatch:
    """One inotify instance watching paths given by `watch`; `changed()` drains what happened since."""

    def __init__(self, notify: INotify) -> None:
        self._notify: INotify | None = notify
        self._paths: dict[int, set[str]] = {}  # watch descriptor -> the paths it stands for
        self._folders: set[int] = set()
        self._watched: dict[str, int] = {}
        self._lost = False

    @classmethod
    def open(cls) -> ChangeWatch | None:
        """A watch, or None where inotify is not there (not Linux, no instance left)."""
        try:
            from inotify_simple import INotify
            return cls(INotify(nonblocking=True))
        except (ImportError, OSError, AttributeError):
            return None

    @property
    def working(self) -> bool:
        return self._notify is not None

    def watch(self, paths: Iterable[str], again: bool = False) -> tuple[list[str], list[str]]:
        """Watches each path that exists (with `again`, anew even when watched: it may be another file now).
        Gives back the paths newly watched and those not there. Out of watches (or on any error but a missing
        path), watching stops for good: `changed()` is None from then on."""
        notify = self._notify
        added: list[str] = []
        absent: list[str] = []
        if notify is None:
            return added, absent
        for path in paths:
            if not again and path in self._watched:
                continue
            try:
                folder = os.path.isdir(path) and not os.path.islink(path)
                wd = notify.add_watch(path, FOLDER_MASK if folder else FILE_MASK)
            except OSError as exc:
                if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
                    absent.append(path)  # not there: its folder's watch sees it come
                    continue
                self.close()
                return [], []
            old = self._watched.get(path)
            if old == wd:
                continue
            if old is not None and old in self._paths:
                self._paths[old].discard(path)
            self._paths.setdefault(wd, set()).add(path)
            self._watched[path] = wd
            if folder:
                self._folders.add(wd)
            added.append(path)
        return added, absent

    def watching(self, path: str) -> bool:
        return path in self._watched

    def changed(self) -> set[str] | None:
        """The paths that may have changed since the last call (a folder, when its entries did, and the entry's
        own path), or None when that cannot be told (see the module's docstring)."""
        notify = self._notify
        if notify is None:
            return None
        try:
            events = notify.read(timeout=0)
        except OSError:
            self.close()
            return None
        dirty: set[str] = set()
        for event in events:
            if event.mask & Q_OVERFLOW:
                self._lost = True
                continue
            paths = self._paths.get(event.wd)
            if paths is None:
                if not event.mask & IGNORED:  # an event of a watch taken back is the only one without a path
                    self._lost = True
                continue
            folder = event.wd in self._folders
            if event.mask & (IGNORED | SELF | UNMOUNT):
                self._forget(event.wd)
                dirty |= paths
                if folder:
                    self._lost = True  # the names below it no longer say where things are
                elif event.mask & MOVE_SELF:
                    self._drop(event.wd)  # the file lives elsewhere now: its path gets a new watch
                continue
            if event.name:
                if event.mask & ISDIR and event.mask & (MOVED_FROM | MOVED_TO):
                    self._lost = True  # a folder renamed: the watches below it carry old names
                for path in paths:
                    dirty.add(os.path.join(path, event.name))
            if not event.name or event.mask & ENTRIES:
                dirty |= paths
        if self._lost:
            self._lost = False
            return None
        return dirty

    def close(self) -> None:
        if self._notify is not None:
            self._notify.close()
        self._notify = None
        self._paths.clear()
        self._watched.clear()
        self._folders.clear()

    def _forget(self, wd: int) -> None:
        for path in self._paths.pop(wd, set()):
            if self._watched.get(path) == wd:
                del self._watched[path]
        self._folders.discard(wd)

    def _drop(self, wd: int) -> None:
        try:
            if self._notify is not None:
                self._notify.rm_watch(wd)
        except OSError:
            pass
