"""The workspace gate every tool uses: paths inside the root, ignore rules, and file-type sniffing."""

from __future__ import annotations

import mimetypes
import os
from collections.abc import Callable, Iterable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import NamedTuple

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind
from gemini_tui.tools.workspace.confined import stable_realpath
from gemini_tui.tools.workspace.ignore_rules import DirectoryRules, IgnoreRules

DEFAULT_EXCLUDED_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "bower_components", "__pycache__"})
DEFAULT_EXCLUDED_FILES = frozenset({".DS_Store"})
IGNORE_FILES = (".gitignore", ".geminiignore")

# a repository's own excludes: read before .gitignore, so .gitignore (and .geminiignore) lines win over them
GIT_EXCLUDE = os.path.join(".git", "info", "exclude")

def _ignore_files(respect_git_ignore: bool, respect_gemini_ignore: bool) -> tuple[str, ...]:
    """The ignore files read in each directory, in the order their lines apply."""
    git = (GIT_EXCLUDE, ".gitignore") if respect_git_ignore else ()
    return (*git, ".geminiignore") if respect_gemini_ignore else git


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
    from gemini_tui.tools.workspace.text_file import detect_bom  # small module; kept local to avoid a cycle at import

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


class FoundFile(NamedTuple):
    """A file found by `Workspace.scan`: its absolute path, its path relative to the scan's start (`/`-separated)
    and its directory entry (whose `stat()` is cached after the first call)."""

    path: str
    rel: str
    entry: os.DirEntry[str]


_NO_RULES = IgnoreRules(())
_Chain = tuple[DirectoryRules, ...]  # the rules of each ancestor with ignore files, placed for one directory


class Workspace:
    """The root directory (and any included directories: `context.includeDirectories`, `--include-directories`,
    `/directory add`) and everything needed to stay inside them. An included directory is part of the workspace
    with the same gate as the root; relative paths still resolve against the root.

    Ignore rules are compiled once per directory and cached, keyed by the ignore files' mtimes and sizes."""

    def __init__(self, root: str | os.PathLike[str], include: Iterable[str | os.PathLike[str]] = ()) -> None:
        self.root = Path(os.path.realpath(root))
        self._root_str = str(self.root)
        self._root_prefix = self._root_str.rstrip(os.sep) + os.sep
        self.included: list[Path] = []
        self._rules: dict[tuple[str, bool, bool], tuple[tuple[tuple[int, int], ...], IgnoreRules]] = {}
        for directory in include:
            self.add_directory(directory)

    @property
    def roots(self) -> list[Path]:
        """The root first, then the included directories: every directory the tools may use (and the sandbox
        must let them write)."""
        return [self.root, *self.included]

    def add_directory(self, directory: str | os.PathLike[str]) -> Path:
        """Makes `directory` (absolute, `~`, or relative to the root) part of the workspace; returns its real
        path. Raises WorkspaceError when it is not a directory."""
        text = os.path.expanduser(os.fspath(directory))
        real = Path(os.path.realpath(text if os.path.isabs(text) else os.path.join(self._root_str, text)))
        if not real.is_dir():
            raise WorkspaceError(ToolErrorKind.file_not_found, f"Not a directory: {directory}.")
        if not self.contains_str(str(real)):
            self.included.append(real)
        return real

    def root_for(self, real_path: str | os.PathLike[str]) -> Path:
        """The workspace directory holding `real_path` (the deepest, when one is inside another)."""
        path = os.fspath(real_path)
        holders = [r for r in self.roots if path == str(r) or path.startswith(str(r).rstrip(os.sep) + os.sep)]
        return max(holders, key=lambda r: len(str(r))) if holders else self.root

    # ----- paths -------------------------------------------------------------------------------------------
    def resolve(self, path: str | os.PathLike[str], *, must_exist: bool = False) -> Path:
        """The real path of `path` (absolute, or relative to the root), or WorkspaceError if it is outside.

        Symlinks are followed (a dangling one to where it points; for a path that does not exist yet, its
        deepest existing ancestor's real path), so a link inside the root that points out is refused as firmly
        as `../x`."""
        text = os.fspath(path)
        if "\x00" in text:
            raise WorkspaceError(ToolErrorKind.invalid_params, "Path contains a NUL byte.")
        if not text.strip():
            raise WorkspaceError(ToolErrorKind.invalid_params, "Path must not be empty.")
        if text.startswith("~"):
            text = os.path.expanduser(text)
        candidate = text if os.path.isabs(text) else os.path.join(self._root_str, text)
        try:
            real = stable_realpath(candidate)
        except OSError as exc:
            raise WorkspaceError(ToolErrorKind.path_outside_root, f"{exc.strerror}: {text}.") from exc
        if not self.contains_str(real):
            also = f" or the included directories ({', '.join(map(str, self.included))})" if self.included else ""
            raise WorkspaceError(
                ToolErrorKind.path_outside_root,
                f"Path is outside the root directory ({self.root}){also}: {text}. "
                "Use a path inside the root directory.",
            )
        if must_exist and not os.path.exists(real):
            raise WorkspaceError(ToolErrorKind.file_not_found, f"File not found: {candidate}")
        return Path(real)

    def contains_str(self, real_path: str) -> bool:
        if real_path == self._root_str or real_path.startswith(self._root_prefix):
            return True
        return any(real_path == str(d) or real_path.startswith(str(d).rstrip(os.sep) + os.sep) for d in self.included)

    def relative(self, path: Path | str, start: Path | None = None) -> str:
        """`path` relative to `start` (default the root), with `/` separators; `.` for the start itself."""
        rel = os.path.relpath(path, start or self.root)
        return rel.replace(os.sep, "/")

    # ----- ignore rules ------------------------------------------------------------------------------------
    def rules_for(self, directory: str | Path, respect_git_ignore: bool = True,
                  respect_gemini_ignore: bool = True) -> IgnoreRules:
        """The compiled rules of `directory`'s own ignore files (`.git/info/exclude`, `.gitignore`, then
        `.geminiignore`; a later file's lines win)."""
        directory = str(directory)
        names = _ignore_files(respect_git_ignore, respect_gemini_ignore)
        stamps: list[tuple[int, int]] = []  # (mtime, size) of each ignore file; (-1, -1) when absent
        for name in names:
            try:
                st = os.stat(os.path.join(directory, name))
                stamps.append((st.st_mtime_ns, st.st_size))
            except OSError:
                stamps.append((-1, -1))
        key = (directory, respect_git_ignore, respect_gemini_ignore)
        cached = self._rules.get(key)
        if cached is not None and cached[0] == tuple(stamps):
            return cached[1]
        lines: list[str] = []
        for name, stamp in zip(names, stamps, strict=True):
            if stamp[0] >= 0:
                try:
                    with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as handle:
                        lines.extend(handle.read().splitlines())
                except OSError:
                    pass
        rules = IgnoreRules(lines) if lines else _NO_RULES
        self._rules[key] = (tuple(stamps), rules)
        return rules

    def is_default_excluded(self, name: str, is_dir: bool) -> bool:
        return name in DEFAULT_EXCLUDED_DIRS if is_dir else name in DEFAULT_EXCLUDED_FILES

    def is_ignored(self, path: Path | str, is_dir: bool | None = None, *, respect_git_ignore: bool = True,
                   default_excludes: bool = True, respect_gemini_ignore: bool = True) -> bool:
        """Whether `path` (a real path inside the root) is excluded by the rules of any directory above it.

        A path inside an ignored directory is ignored, as in git: it cannot be re-included."""
        path = str(path)
        if is_dir is None:
            is_dir = os.path.isdir(path)
        if not self.contains_str(path):
            return False
        top = str(self.root_for(path))
        if path == top:
            return False
        parts = path[len(top.rstrip(os.sep) + os.sep):].split(os.sep)
        chain: _Chain = ()
        current = top
        for index, part in enumerate(parts):
            chain = self._extend(chain, current, respect_git_ignore, respect_gemini_ignore)
            part_is_dir = is_dir if index == len(parts) - 1 else True
            if default_excludes and self.is_default_excluded(part, part_is_dir):
                return True
            if _chain_ignores(chain, part, part_is_dir):
                return True
            chain = tuple(rules.descend(part) for rules in chain)
            current = os.path.join(current, part)
        return False

    def entry_filter(self, directory: Path | str, *, respect_git_ignore: bool = True,
                     default_excludes: bool = True) -> Callable[[str, bool], bool]:
        """A check of whether an entry (name, is_dir) directly inside `directory` is ignored by the rules that
        apply there. The directory itself is not judged: it was named explicitly."""
        directory = str(directory)
        chain = self._extend(self._chain_to(directory, respect_git_ignore), directory, respect_git_ignore)

        def ignored(name: str, is_dir: bool) -> bool:
            if default_excludes and self.is_default_excluded(name, is_dir):
                return True
            return bool(chain) and _chain_ignores(chain, name, is_dir)

        return ignored

    def _extend(self, chain: _Chain, directory: str, respect_git_ignore: bool,
                respect_gemini_ignore: bool = True) -> _Chain:
        rules = self.rules_for(directory, respect_git_ignore, respect_gemini_ignore)
        return (*chain, rules.at("")) if rules else chain

    def _chain_to(self, start: str, respect_git_ignore: bool, respect_gemini_ignore: bool = True) -> _Chain:
        """The rules of the root and every directory down to `start`'s parent, prefixed for `start`'s entries."""
        chain: _Chain = ()
        top = str(self.root_for(start))
        if start == top:
            return chain
        current = top
        for part in start[len(top.rstrip(os.sep) + os.sep):].split(os.sep):
            chain = self._extend(chain, current, respect_git_ignore, respect_gemini_ignore)
            chain = tuple(rules.descend(part) for rules in chain)
            current = os.path.join(current, part)
        return chain

    # ----- walking -----------------------------------------------------------------------------------------
    def scan(self, start: Path | str, *, respect_git_ignore: bool = True, respect_gemini_ignore: bool = True,
             default_excludes: bool = True,
             abort_signal: AbortSignal | None = None,
             wanted: Callable[[str, str], bool] | None = None) -> Iterator[FoundFile]:
        """Every file under `start` (a real directory inside the root) that no rule ignores, pruning ignored
        directories as soon as they are seen. Symlinks are not followed into directories; a symlink to a file
        is yielded only when its target is inside the root. Stops early when `abort_signal` is aborted.

        `wanted(name, rel)`, when given, picks files before the ignore rules are consulted (a cheap glob test
        first saves rule checks on the files it rejects)."""
        start = str(start)
        if self.is_ignored(start, True, respect_git_ignore=respect_git_ignore, default_excludes=default_excludes,
                           respect_gemini_ignore=respect_gemini_ignore):
            return
        excluded_dirs = DEFAULT_EXCLUDED_DIRS if default_excludes else frozenset()
        excluded_files = DEFAULT_EXCLUDED_FILES if default_excludes else frozenset()
        ignore_names = (".git", *_ignore_files(respect_git_ignore, respect_gemini_ignore))
        stack: list[tuple[str, str, _Chain]] = [
            (start, "", self._chain_to(start, respect_git_ignore, respect_gemini_ignore))]
        while stack:
            if abort_signal is not None and abort_signal.aborted:
                return
            directory, rel_dir, chain = stack.pop()
            try:
                with os.scandir(directory) as listing:
                    entries = sorted(listing, key=_entry_name)
            except OSError:
                continue
            if any(entry.name in ignore_names for entry in entries):
                chain = self._extend(chain, directory, respect_git_ignore, respect_gemini_ignore)
            subdirs: list[tuple[str, str, _Chain]] = []
            for entry in entries:
                name = entry.name
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if name in (excluded_dirs if is_dir else excluded_files):
                    continue
                if wanted is not None and not is_dir and not wanted(name, rel_dir + name):
                    continue
                if chain and _chain_ignores(chain, name, is_dir):
                    continue
                if is_dir:
                    sub_chain = tuple(rules.descend(name) for rules in chain)
                    subdirs.append((entry.path, f"{rel_dir}{name}/", sub_chain))
                    continue
                try:
                    if entry.is_symlink():
                        real = os.path.realpath(entry.path)
                        if not self.contains_str(real) or not os.path.isfile(real):
                            continue
                    elif not entry.is_file(follow_symlinks=False):
                        continue  # sockets, fifos, devices
                except OSError:
                    continue
                yield FoundFile(entry.path, rel_dir + name, entry)
            stack.extend(reversed(subdirs))


def _entry_name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _chain_ignores(chain: _Chain, name: str, is_dir: bool) -> bool:
    """Deeper ignore files override shallower ones; within one file the last matching rule wins."""
    for rules in reversed(chain):
        decision = rules.match(name, is_dir)
        if decision is not None:
            return decision
    return False
