"""Whether a file can be written where it is: asked before an edit is reviewed, and again before it is written.

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

from gemini_tui.core.ground.confirmation import EditUnavailable
from gemini_tui.core.ground.tool_result import ToolErrorKind, ToolResult


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


def unavailable(path: Path, root: Path, *, existed: bool) -> EditUnavailable | None:
    """What keeps an edit of `path`, reviewed when the file was (`existed`) or was not there, from being written
    now, other than a change of its text: deleted, created meanwhile, now a directory, a link leading out of
    `root`, another kind of file, or read-only. None when none of these holds."""
    if not os.path.lexists(path):
        return EditUnavailable("deleted", "was deleted") if existed else None
    real = os.path.realpath(path)
    real_root = os.path.realpath(root)
    if os.path.islink(path) and not (real + os.sep).startswith(real_root.rstrip(os.sep) + os.sep):
        return EditUnavailable("link", f"is now a symbolic link leading out of {real_root}")
    if os.path.isdir(path):
        return EditUnavailable("directory", "is now a directory")
    if not os.path.isfile(path):
        return EditUnavailable("special", "is no longer a regular file" if existed else
                               "now exists as something other than a regular file")
    if not existed:
        return EditUnavailable("created", "was created on disk meanwhile")
    if (reason := read_only_reason(path)) is not None:
        return EditUnavailable("read_only", f"became read-only: {reason}")
    if not os.access(path, os.R_OK):
        return EditUnavailable("unreadable", "can no longer be read (permission denied)")
    return None


# what an approved edit stopped by `kind` tells the model: the error's kind, and what to do about it
_AFTER_APPROVAL: dict[str, tuple[ToolErrorKind, str]] = {
    "deleted": (ToolErrorKind.file_changed, "Ask the user whether it should exist before writing it again."),
    "changed": (ToolErrorKind.file_changed, "Read the file again and redo the edit."),
    "created": (ToolErrorKind.file_changed, "Read the file again and redo the edit."),
    "directory": (ToolErrorKind.is_a_directory, "Tell the user."),
    "link": (ToolErrorKind.path_outside_root, "Tell the user."),
    "special": (ToolErrorKind.file_changed, "Tell the user."),
    "read_only": (ToolErrorKind.permission_denied, "Tell the user; they can make it writable."),
    "not_text": (ToolErrorKind.binary_file, "Tell the user."),
    "unreadable": (ToolErrorKind.permission_denied, "Tell the user."),
}


def led_out(root: Path | str) -> EditUnavailable:
    """The path no longer resolves inside the root: it, or a folder on its way, became a link leading out."""
    return EditUnavailable("link", f"is now a symbolic link leading out of {os.path.realpath(root)} (it, or a "
                                   "folder on its way)")


def after_approval(path: Path | str, problem: EditUnavailable) -> ToolResult:
    """The failure of an approved edit that can no longer be written, saying what happened since the review."""
    kind, advice = _AFTER_APPROVAL.get(problem.kind, (ToolErrorKind.file_changed, "Tell the user."))
    return ToolResult.failure(kind, f"Nothing was written: after the user approved the edit, {path} "
                                    f"{problem.reason}. {advice}")
