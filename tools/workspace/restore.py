"""Putting checkpointed files back (core.checkpoints.FileRestorer) through the same confined descriptor walk as
every other write: nothing lands outside the root, and no link on the way is followed."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gemini_tui.tools.workspace.confined import parent_directory, write_bytes_confined
from gemini_tui.tools.workspace.text_file import _current_umask

_PROBE = ".gemini-tui-restore-probe"  # a name that does not exist: the walk then stops at the real parent


class ConfinedRestorer:
    """Writes, links and deletes paths relative to `root`, as a checkpoint restore needs."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    @contextmanager
    def _parent(self, relative: str, *, create: bool = False) -> Iterator[tuple[int, str]]:
        """The parent directory's descriptor and the entry's own name; the entry itself is never followed."""
        target = self.root / relative
        with parent_directory(target.parent / _PROBE, self.root, create=create) as (dir_fd, _probe):
            yield dir_fd, target.name

    def write(self, relative: str, data: bytes, mode: int | None) -> None:
        with self._parent(relative, create=True) as (dir_fd, name):
            try:
                st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                st = None
            if st is not None and (stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode)):
                if stat.S_ISDIR(st.st_mode):
                    raise IsADirectoryError(errno.EISDIR, "a directory is now where the file was", relative)
                os.unlink(name, dir_fd=dir_fd)  # a link (or special file) now stands where the file was
            elif st is not None and not stat.S_IMODE(st.st_mode) & 0o222:
                self._chmod(dir_fd, name, 0o600)  # made read-only since: the content still goes back
        write_bytes_confined(self.root / relative, self.root, data, umask=_current_umask)
        if mode is not None:
            with self._parent(relative) as (dir_fd, name):
                self._chmod(dir_fd, name, mode)

    @staticmethod
    def _chmod(dir_fd: int, name: str, mode: int) -> None:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
        try:
            os.fchmod(fd, mode)
        finally:
            os.close(fd)

    def symlink(self, relative: str, target: str) -> None:
        with self._parent(relative, create=True) as (dir_fd, name):
            try:
                os.unlink(name, dir_fd=dir_fd)
            except FileNotFoundError:
                pass
            os.symlink(target, name, dir_fd=dir_fd)

    def delete(self, relative: str) -> None:
        with self._parent(relative) as (dir_fd, name):
            try:
                os.unlink(name, dir_fd=dir_fd)
            except FileNotFoundError:
                return
