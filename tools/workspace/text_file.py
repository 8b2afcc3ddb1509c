"""Reading and writing text files without losing their encoding, BOM or line endings; the one write function."""

from __future__ import annotations

import codecs
import errno
import os
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# Called with (path, old bytes or None) just before a file is replaced: the place checkpoints hook in.
BEFORE_WRITE_HOOKS: list[Callable[[Path, bytes | None], None]] = []


@dataclass(frozen=True)
class TextFile:
    """Decoded content with `\\n` line endings, and what is needed to write it back as it was."""

    content: str
    encoding: str = "utf-8"
    bom: bytes = b""
    newline: str = "\n"  # "\r\n" for CRLF files; "" when endings are mixed and kept exactly as read


def detect_bom(data: bytes) -> tuple[bytes, str] | None:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return bom, encoding
    return None


def decode_text(data: bytes) -> TextFile:
    """Decode bytes the way an editor would: BOM, then UTF-8, then cp1252, then latin-1 (never fails)."""
    found = detect_bom(data)
    if found:
        bom, encoding = found
        text = data[len(bom):].decode(encoding, errors="replace")
    else:
        bom = b""
        for encoding in ("utf-8", "cp1252", "latin-1"):
            try:
                text = data.decode(encoding)
                break
            except UnicodeDecodeError:
                continue
    crlf = text.count("\r\n")
    lone_lf = text.count("\n") - crlf
    if crlf and not lone_lf:
        return TextFile(text.replace("\r\n", "\n"), encoding, bom, "\r\n")
    if crlf and lone_lf:
        return TextFile(text, encoding, bom, "")
    return TextFile(text, encoding, bom, "\n")


def read_text(path: Path) -> TextFile:
    return decode_text(path.read_bytes())


def encode_text(content: str, like: TextFile | None = None) -> bytes:
    """Encode `content` (with `\\n` endings) in the encoding, BOM and line endings of `like`."""
    if like is None:
        return content.encode("utf-8")
    if like.newline == "\r\n":
        content = content.replace("\r\n", "\n").replace("\n", "\r\n")
    try:
        body = content.encode(like.encoding)
    except UnicodeEncodeError:
        # New characters the old encoding cannot hold: UTF-8 keeps them rather than losing them.
        return (codecs.BOM_UTF8 if like.bom else b"") + content.encode("utf-8")
    return like.bom + body


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """The one function that writes files: temp file beside the target, fsync, rename.

    A symlink is written through to its target; the target keeps its permission bits. A reader (or a crash)
    sees the old file or the new one, never a mix. A read-only file (no write bit at all) is refused with
    PermissionError: the rename would replace it regardless, and root ignores the bits."""
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    old: bytes | None = None
    mode: int | None = None
    owner: tuple[int, int] | None = None
    try:
        st = target.stat()
        mode = stat.S_IMODE(st.st_mode)
        owner = (st.st_uid, st.st_gid)
        if stat.S_ISREG(st.st_mode) and not mode & 0o222:
            raise PermissionError(errno.EACCES, "the file is read-only", str(path))
        if BEFORE_WRITE_HOOKS:
            old = target.read_bytes()
    except FileNotFoundError:
        pass
    for hook in BEFORE_WRITE_HOOKS:
        hook(target, old)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is None:
            mode = 0o666 & ~_current_umask()
        os.chmod(tmp_name, mode)
        if owner is not None and owner != (os.geteuid(), os.getegid()):
            try:
                os.chown(tmp_name, *owner)  # root editing someone's file must not hand it to root
            except OSError:
                pass
        os.replace(tmp_name, target)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
    try:
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass  # some file systems cannot fsync a directory; the rename itself is still atomic


def _current_umask() -> int:
    """The process umask, read without changing it: os.umask() would briefly set it for every thread."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return _UMASK_AT_IMPORT


def _umask_at_import() -> int:
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


_UMASK_AT_IMPORT = _umask_at_import()


def write_text(path: Path, content: str, like: TextFile | None = None) -> None:
    write_bytes_atomic(path, encode_text(content, like))
