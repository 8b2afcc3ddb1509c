"""Whether a file can be written where it is, asked before the user reviews an edit of it (workspace room).

An edit replaces a file through a temporary file beside it and a rename (text_file.write_bytes_atomic), so
"read-only" is more than the file's own bits:

- a file whose permission bits allow nobody to write (`chmod a-w`): read-only for everyone, root too (root's
  writes ignore the bits, but the user locked the file on purpose, and write_bytes_atomic refuses it as well);
- a file the user cannot write (another owner's `-rw-r--r--`, an ACL): read-only for this user. Root can write
  it (os.access says so), and its owner and bits are kept;
- a file or a new file's folder on a read-only mount: read-only for everyone;
- a folder the user cannot write: neither a new file nor the temporary file of a replacement can be made in it
  (root can).

What is said names the reason, so the model can tell the user rather than retry."""

from __future__ import annotations

import os
import pwd
import stat
from pathlib import Path


def read_only_reason(path: Path) -> str | None:
    """Why writing `path` (replacing it, or creating it and its missing folders) would be refused, as a clause
    ("it is read-only (...)", "its folder ... is on a read-only file system"); None when it can be written (or
    when it is not a regular file or folder: the tools' own checks say what it is)."""
    try:
        st = os.stat(path)  # through a link to a file: the target is what gets written
    except FileNotFoundError:
        st = None
    except OSError:
        return None  # unreachable in another way (a loop, a file on the way): said where it is read
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            return None
        if _read_only_mount(path):
            return "it is on a read-only file system"
        mode = stat.filemode(st.st_mode)
        if not st.st_mode & 0o222:
            return f"it is read-only (its permissions, {mode}, let nobody write it)"
        if not os.access(path, os.W_OK):
            whose = f"{mode}, owned by {_owner(st.st_uid)}; you are {_owner(os.geteuid())}"
            if not os.access(path, os.R_OK):
                return f"it is read-only for you, and not even readable ({whose})"
            return f"it is read-only for you ({whose})"
        folder = Path(os.path.realpath(path)).parent
        return _folder_reason(folder, new=False)
    folder = path.parent
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    if not folder.is_dir():
        return None
    return _folder_reason(folder, new=True)


def _folder_reason(folder: Path, *, new: bool) -> str | None:
    """Why no file can be made in `folder` (a new file, or the one that replaces an existing file), or None."""
    where = f"the folder it would be created in, {folder}," if new else f"its folder {folder}"
    if _read_only_mount(folder):
        return f"{where} is on a read-only file system"
    if not os.access(folder, os.W_OK | os.X_OK):
        st = folder.stat()
        why = "no new file can be made there" if new else "the file is replaced by a new file made there"
        return (f"{where} is read-only for you ({stat.filemode(st.st_mode)}, owned by {_owner(st.st_uid)}; you "
                f"are {_owner(os.geteuid())}), and {why}")
    return None


def _read_only_mount(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _owner(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"
