"""The workspace gate every tool uses: paths inside the root, ignore rules, and file-type sniffing."""

from __future__ import annotations

import mimetypes
import os
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from pathspec import GitIgnoreSpec

from core.tool import ToolError, ToolErrorKind

DEFAULT_EXCLUDED_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "bower_components", "__pycache__"})
DEFAULT_EXCLUDED_FILES = frozenset({".DS_Store"})
IGNORE_FILES = (".gitignore", ".geminiignore")


class WorkspaceError(Exception):
    def __init__(self, kind: ToolErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message

    def as_tool_error(self) -> ToolError:
        return ToolError(self.kind, self.message)


class FileType(StrEnum):
    text = "text"
    image = "image"
    pdf = "pdf"
    binary = "binary"


_IMAGE_MIME = {
    ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
    ".webp": "image/webp", ".svg": "image/svg+xml", ".bmp": "image/bmp",
}
_BINARY_EXTENSIONS = frozenset({
    ".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".exe", ".dll", ".so", ".dylib", ".o", ".a",
    ".class", ".jar", ".war", ".pyc", ".pyo", ".wasm", ".bin", ".dat", ".db", ".sqlite", ".ico", ".woff",
    ".woff2", ".ttf", ".otf", ".eot", ".mp3", ".mp4", ".wav", ".ogg", ".avi", ".mov", ".mkv", ".doc", ".docx",
    ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp", ".tiff", ".tif", ".psd",
})


def mime_type_of(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in _IMAGE_MIME:
        return _IMAGE_MIME[suffix]
    if suffix == ".pdf":
        return "application/pdf"
    return mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def sniff_bytes(name: str, head: bytes) -> FileType:
    """Decide from the name and the first few KiB of content."""
    suffix = Path(name).suffix.lower()
    if suffix in _IMAGE_MIME:
        return FileType.image
    if suffix == ".pdf" or head.startswith(b"%PDF-"):
        return FileType.pdf
    from tools.text_file import detect_bom  # small module; kept local to avoid a cycle at import

    if detect_bom(head):
        return FileType.text
    if suffix in _BINARY_EXTENSIONS or b"\x00" in head:
        return FileType.binary
    if not head:
        return FileType.text
    try:
        head.decode("utf-8")
        return FileType.text
    except UnicodeDecodeError as exc:
        if exc.start >= len(head) - 4:  # a multi-byte character cut by the end of the sample
            return FileType.text
    control = sum(1 for b in head if b < 9 or 13 < b < 32)
    return FileType.binary if control / len(head) > 0.1 else FileType.text


def sniff_file(path: Path) -> FileType:
    with open(path, "rb") as handle:
        head = handle.read(4096)
    return sniff_bytes(path.name, head)


@dataclass(frozen=True)
class _DirRules:
    spec: GitIgnoreSpec | None


class Workspace:
    """The root directory and everything needed to stay inside it.

    Ignore specs are compiled once per directory and cached by the ignore file's mtime."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(os.path.realpath(root))
        self._rules: dict[tuple[Path, bool], tuple[tuple[float, ...], _DirRules]] = {}

    # ----- paths -------------------------------------------------------------------------------------------
    def resolve(self, path: str | os.PathLike[str], *, must_exist: bool = False) -> Path:
        """The real path of `path` (absolute, or relative to the root), or WorkspaceError if it is outside.

        Symlinks are followed (a dangling one to where it points), so a link inside the root that points out
        is refused as firmly as `../x`."""
        text = os.fspath(path)
        if "\x00" in text:
            raise WorkspaceError(ToolErrorKind.invalid_params, "Path contains a NUL byte.")
        if not text.strip():
            raise WorkspaceError(ToolErrorKind.invalid_params, "Path must not be empty.")
        if text.startswith("~"):
            text = os.path.expanduser(text)
        candidate = Path(text) if os.path.isabs(text) else self.root / text
        real = Path(os.path.realpath(candidate))
        if not self.contains(real):
            raise WorkspaceError(
                ToolErrorKind.path_outside_root,
                f"Path is outside the root directory ({self.root}): {text}. "
                "Use a path inside the root directory.",
            )
        if must_exist and not real.exists():
            raise WorkspaceError(ToolErrorKind.file_not_found, f"File not found: {text}")
        return real

    def contains(self, real_path: Path) -> bool:
        return real_path == self.root or self.root in real_path.parents

    def relative(self, path: Path, start: Path | None = None) -> str:
        """`path` relative to `start` (default the root), with `/` separators; `.` for the start itself."""
        rel = os.path.relpath(path, start or self.root)
        return rel.replace(os.sep, "/")

    # ----- ignore rules ------------------------------------------------------------------------------------
    def _dir_rules(self, directory: Path, respect_git_ignore: bool) -> _DirRules:
        names = IGNORE_FILES if respect_git_ignore else (".geminiignore",)
        files = [directory / n for n in names]
        stamps = tuple(f.stat().st_mtime if f.is_file() else -1.0 for f in files)
        key = (directory, respect_git_ignore)
        cached = self._rules.get(key)
        if cached and cached[0] == stamps:
            return cached[1]
        lines: list[str] = []
        for f, stamp in zip(files, stamps, strict=True):
            if stamp >= 0:
                try:
                    lines.extend(f.read_text(encoding="utf-8", errors="replace").splitlines())
                except OSError:
                    pass
        rules = _DirRules(GitIgnoreSpec.from_lines(lines) if any(line.strip() for line in lines) else None)
        self._rules[key] = (stamps, rules)
        return rules

    def is_default_excluded(self, name: str, is_dir: bool) -> bool:
        return name in DEFAULT_EXCLUDED_DIRS if is_dir else name in DEFAULT_EXCLUDED_FILES

    def is_ignored(self, path: Path, is_dir: bool | None = None, *, respect_git_ignore: bool = True,
                   default_excludes: bool = True) -> bool:
        """Whether `path` (a real path inside the root) is excluded by the rules of any directory above it.

        A path inside an ignored directory is ignored, as in git: it cannot be re-included."""
        if is_dir is None:
            is_dir = path.is_dir()
        if path == self.root:
            return False
        parts = path.relative_to(self.root).parts
        specs: list[GitIgnoreSpec | None] = []
        dirs: list[Path] = []
        current = self.root
        for index, part in enumerate(parts):
            specs.append(self._dir_rules(current, respect_git_ignore).spec)
            dirs.append(current)
            part_is_dir = is_dir if index == len(parts) - 1 else True
            if default_excludes and self.is_default_excluded(part, part_is_dir):
                return True
            current = current / part
            if self._matches(specs, dirs, current, part_is_dir):
                return True
        return False

    def _chain(self, start: Path) -> list[Path]:
        """The directories from the root down to `start`, both included."""
        parts = start.relative_to(self.root).parts
        return [self.root.joinpath(*parts[:i]) for i in range(len(parts) + 1)]

    def walk(self, start: Path, *, respect_git_ignore: bool = True, default_excludes: bool = True,
             follow_symlinks: bool = False) -> Iterator[tuple[Path, os.stat_result]]:
        """Every file under `start` (a real directory inside the root) that no rule ignores, pruning ignored
        directories. Yields the path and its stat result; symlinks that lead outside the root are skipped."""
        if self.is_ignored(start, True, respect_git_ignore=respect_git_ignore, default_excludes=default_excludes):
            return
        stack: list[tuple[Path, list[GitIgnoreSpec | None], list[Path]]] = []
        chain_dirs = self._chain(start)
        specs = [self._dir_rules(d, respect_git_ignore).spec for d in chain_dirs]
        stack.append((start, specs, chain_dirs))
        while stack:
            directory, specs, dirs = stack.pop()
            try:
                entries = list(os.scandir(directory))
            except OSError:
                continue
            entries.sort(key=lambda e: e.name)
            subdirs: list[Path] = []
            for entry in entries:
                try:
                    is_dir = entry.is_dir(follow_symlinks=follow_symlinks)
                    is_link = entry.is_symlink()
                except OSError:
                    continue
                if default_excludes and self.is_default_excluded(entry.name, is_dir):
                    continue
                path = Path(entry.path)
                if self._matches(specs, dirs, path, is_dir):
                    continue
                if is_link:
                    real = Path(os.path.realpath(path))
                    if not self.contains(real) or not real.exists():
                        continue
                if is_dir:
                    subdirs.append(path)
                else:
                    try:
                        st = entry.stat(follow_symlinks=True)
                    except OSError:
                        continue
                    if not os.path.isfile(path):
                        continue
                    yield path, st
            for sub in reversed(subdirs):
                sub_spec = self._dir_rules(sub, respect_git_ignore).spec
                stack.append((sub, [*specs, sub_spec], [*dirs, sub]))

    @staticmethod
    def _matches(specs: list[GitIgnoreSpec | None], dirs: list[Path], path: Path, is_dir: bool) -> bool:
        decision: bool | None = None
        for spec, directory in zip(specs, dirs, strict=True):
            if spec is None:
                continue
            sub = path.relative_to(directory).as_posix() + ("/" if is_dir else "")
            result = spec.check_file(sub)
            if result.include is not None:
                decision = result.include
        return bool(decision)
