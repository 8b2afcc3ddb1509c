"""File access that cannot be redirected out of a root: every directory is opened relative to its parent's
descriptor with O_NOFOLLOW, from the root down, and the file itself is opened, created and renamed relative to
the last one.

Checking a path and then using it by name leaves a window in which a directory on the way can be swapped for a
symbolic link to somewhere else (the whole time the user spends reading a diff, in the app). Walking descriptors
closes it: once a directory is open, its descriptor stays that directory whatever happens to the name, and a
component that is (or becomes) a link is refused by the kernel (ELOOP), not followed. A symlinked *file* whose
target lies inside the root is still written: its real path is walked instead."""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager

BeforeWrite = Callable[[str, "bytes | None"], None]  # (real path, old bytes or None), just before a write
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class OutsideRootError(OSError):
    """The path leaves the root, or a directory on the way is (or became) a symbolic link: nothing was done."""


def confined_target(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> tuple[str, list[str]]:
    """The real root and the components of `path`'s real path below it (a symlinked file resolves to its
    target). Raises OutsideRootError when the real path is not inside the root."""
    real_root = os.path.realpath(root)
    target = stable_realpath(path)
    if target == real_root:
        raise IsADirectoryError(errno.EISDIR, "the root directory is not a file", os.fspath(path))
    prefix = real_root.rstrip(os.sep) + os.sep
    if not target.startswith(prefix):
        raise OutsideRootError(errno.EXDEV, f"the path resolves outside {real_root}", os.fspath(path))
    return real_root, target[len(prefix):].split(os.sep)


def stable_realpath(path: str | os.PathLike[str]) -> str:
    """os.path.realpath, which raises (EINVAL from readlink) when a link is swapped for a directory while it
    resolves: tried again, then refused as a path that will not hold still."""
    for _ in range(3):
        try:
            return os.path.realpath(path)
        except OSError:
            continue
    raise OutsideRootError(errno.ELOOP, "the path kept changing (links swapped) while it was resolved",
                           os.fspath(path))


@contextmanager
def parent_directory(path: str | os.PathLike[str], root: str | os.PathLike[str], *,
                     create: bool = False) -> Iterator[tuple[int, str]]:
    """(descriptor of the parent directory, the file's name), the parent reached from the root one directory
    at a time without following links; missing directories are made when `create` is true. The descriptor is
    closed when the block ends."""
    real_root, parts = confined_target(path, root)
    fd = os.open(real_root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts[:-1]:
            parent, fd = fd, -1  # _step closes the parent whatever happens
            fd = _step(parent, part, create, os.fspath(path))
        yield fd, parts[-1]
    finally:
        if fd >= 0:
            os.close(fd)


def _step(fd: int, name: str, create: bool, shown: str) -> int:
    """Opens directory `name` inside `fd` (closing `fd`), making it first if asked and missing."""
    try:
        try:
            child = os.open(name, _DIR_FLAGS, dir_fd=fd)
        except FileNotFoundError:
            if not create:
                raise
            try:
                os.mkdir(name, 0o777, dir_fd=fd)
            except FileExistsError:
                pass  # made meanwhile by someone else: opened (and checked) below like any other
            child = os.open(name, _DIR_FLAGS, dir_fd=fd)
    except OSError as exc:
        # Linux says ENOTDIR for a link opened with O_DIRECTORY | O_NOFOLLOW (ELOOP without O_DIRECTORY); by the
        # time we look it may be a directory again: anything but a plain file there was a link when opened
        if exc.errno == errno.ELOOP or (exc.errno == errno.ENOTDIR and not _is_file(fd, name)):
            raise OutsideRootError(errno.ELOOP, f"{name} on the way is a symbolic link, not followed", shown) from exc
        raise
    finally:
        os.close(fd)
    return child


def _is_file(dir_fd: int, name: str) -> bool:
    try:
        mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except OSError:
        return False
    return not (stat.S_ISDIR(mode) or stat.S_ISLNK(mode))


def read_bytes_confined(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bytes:
    """The content of `path`, read through the same walk (the file itself opened without following a link)."""
    with parent_directory(path, root) as (dir_fd, name):
        return _read_at(dir_fd, name, os.fspath(path))


def _read_at(dir_fd: int, name: str, shown: str) -> bytes:
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OutsideRootError(errno.ELOOP, "it is a symbolic link that does not lead to a file inside the "
                                   "root (symbolic links are followed only to such files)", shown) from exc
        raise
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def write_bytes_confined(path: str | os.PathLike[str], root: str | os.PathLike[str], data: bytes, *,
                         umask: Callable[[], int], before: BeforeWrite | None = None) -> None:
    """Temp file in the parent's descriptor, fsync, rename within that descriptor: atomic and confined.

    The file keeps its permission bits and owner; a new one gets 0o666 less `umask`. A read-only file (no write
    bit at all) is refused with PermissionError: the rename would replace it regardless, and root ignores the
    bits. `before(real path, old bytes or None)` runs just before the rename is prepared (checkpoints). `umask()`
    is asked only for a new file (reading it costs a file read)."""
    shown = os.fspath(path)
    with parent_directory(path, root, create=True) as (dir_fd, name):
        mode: int | None = None
        owner: tuple[int, int] | None = None
        old: bytes | None = None
        try:
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            st = None
        if st is not None:
            if stat.S_ISLNK(st.st_mode):
                raise OutsideRootError(errno.ELOOP, "it is a symbolic link that does not lead to a file inside the "
                                       "root (symbolic links are written through only to such files); not replaced",
                                       shown)
            if stat.S_ISDIR(st.st_mode):
                raise IsADirectoryError(errno.EISDIR, "is a directory", shown)
            mode = stat.S_IMODE(st.st_mode)
            owner = (st.st_uid, st.st_gid)
            if stat.S_ISREG(st.st_mode) and not mode & 0o222:
                raise PermissionError(errno.EACCES, "the file is read-only", shown)
            if before is not None:
                old = _read_at(dir_fd, name, shown)
        if before is not None:
            before(os.path.realpath(path), old)
        tmp_name = f".{name}.{secrets.token_hex(4)}.tmp"
        fd = os.open(tmp_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                     dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
                os.fchmod(handle.fileno(), mode if mode is not None else 0o666 & ~umask())
                if owner is not None and owner != (os.geteuid(), os.getegid()):
                    try:
                        os.fchown(handle.fileno(), *owner)  # root editing someone's file must not hand it to root
                    except OSError:
                        pass
            os.replace(tmp_name, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            try:
                os.unlink(tmp_name, dir_fd=dir_fd)
            except FileNotFoundError:
                pass
            raise
        try:
            os.fsync(dir_fd)
        except OSError:
            pass  # some file systems cannot fsync a directory; the rename itself is still atomic
