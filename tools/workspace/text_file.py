"""Reading and writing text files without losing their encoding, BOM or line endings; the one write function."""

from __future__ import annotations

import codecs
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from gemini_tui.tools.workspace.confined import read_bytes_confined, write_bytes_confined

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# Called with (path, old bytes or None) just before a file is replaced: the place checkpoints hook in.
BEFORE_WRITE_HOOKS: list[Callable[[Path, bytes | None], None]] = []


class EditorFiles(Protocol):
    """An editor that holds files in buffers (an ACP client advertising fs): text files inside a root are read
    from it and written to it, so an edit lands in the editor's unsaved buffer. Called from worker threads; `read`
    returning None, or `write` returning False, leaves the file to the disk (a refusal raises OSError)."""

    def read(self, path: Path) -> str | None: ...
    def write(self, path: Path, content: str) -> bool: ...


EDITORS: list[EditorFiles] = []


def _inside(path: Path, root: Path | str) -> bool:
    """Whether `path`, links resolved, is inside `root`: only then may an editor see it (a link leading out is
    left to the confined disk walk, which refuses it)."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def editor_text(path: Path, root: Path | str) -> str | None:
    """The editor's text of `path` (its buffer, saved or not), or None when no editor holds it."""
    if not EDITORS or not _inside(path, root):
        return None
    for editor in list(EDITORS):
        text = editor.read(path)
        if text is not None:
            return text
    return None


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
        bom, text, encoding = b"", "", "latin-1"
        for encoding in ("utf-8", "cp1252", "latin-1"):  # latin-1 decodes any bytes: the loop always breaks
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


def read_text(path: Path, *, root: Path | str | None = None) -> TextFile:
    """The file decoded; with `root`, read through the same confined walk as writes (a file the user reviewed
    is read the way it will be written). An editor's buffer (EDITORS) is read instead of the disk."""
    if root is not None and (text := editor_text(path, root)) is not None:
        return decode_text(text.encode("utf-8"))
    return decode_text(path.read_bytes() if root is None else read_bytes_confined(path, root))


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


def write_bytes_atomic(path: Path, data: bytes, *, root: Path | str) -> None:
    """The one function that writes files: temp file beside the target, fsync, rename, all through directory
    descriptors walked from `root` (tools/workspace/confined.py), so nothing lands outside it.

    A symlink to a file inside the root is written through to its target; the target keeps its permission bits
    and owner. A reader (or a crash) sees the old file or the new one, never a mix. A read-only file (no write
    bit at all) is refused with PermissionError; a path leaving the root, or a directory on the way that is or
    becomes a link, with OutsideRootError."""
    hooks = list(BEFORE_WRITE_HOOKS)

    def before(real_path: str, old: bytes | None) -> None:
        for hook in hooks:
            hook(Path(real_path), old)

    write_bytes_confined(path, root, data, umask=_current_umask, before=before if hooks else None)


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


def write_text(path: Path, content: str, like: TextFile | None = None, *, root: Path | str) -> None:
    if EDITORS and _inside(path, root):
        text = content.replace("\r\n", "\n").replace("\n", "\r\n") if like and like.newline == "\r\n" else content
        if any(editor.write(path, text) for editor in list(EDITORS)):
            return
    write_bytes_atomic(path, encode_text(content, like), root=root)
