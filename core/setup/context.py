"""GEMINI.md context files: the user's, the root's ancestors', the root's and below, joined for the model."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pathspec import GitIgnoreSpec

from gemini_tui.core.setup.memory_imports import ImportNode, process_imports, tree_lines

# The walk below the root is bounded: a huge tree must not delay the first prompt.
MAX_DIRS_BELOW_ROOT = 200
MAX_FILE_BYTES = 512 * 1024
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox",
                          "dist", "build"})
IGNORE_FILES = (".gitignore", ".geminiignore")


@dataclass(frozen=True)
class Memory:
    """The joined text of every context file, the files it came from (in order), each file's import tree and
    what went wrong with imports (missing files, cycles, paths outside the allowed directories)."""

    text: str = ""
    files: tuple[Path, ...] = field(default_factory=tuple)
    trees: tuple[ImportNode, ...] = field(default_factory=tuple)
    problems: tuple[str, ...] = field(default_factory=tuple)

    def outline(self) -> str:
        """Where each part came from: every context file with the files it imports, nested."""
        lines = [line for tree in self.trees for line in tree_lines(tree)]
        if self.problems:
            lines += ["", "Import problems:", *(f"- {problem}" for problem in self.problems)]
        return "\n".join(lines)


def _candidates(directory: Path, file_names: Iterable[str]) -> list[Path]:
    # only plain names (settings refuse the rest with a notice): `directory / "/etc/x"` would be /etc/x
    return [directory / name for name in file_names
            if name and "/" not in name and "\\" not in name and ".." not in name and "\0" not in name
            and len(name.encode()) <= 255 and _is_file(directory / name)]


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):  # a name the file system refuses (too long, a byte it cannot hold)
        return False


def _outside(path: Path, scope: Sequence[Path]) -> Path | None:
    """Where `path` really is when that is outside every folder of `scope` (a link out of the project); else None."""
    real = Path(os.path.realpath(path))
    if any(real == d or real.is_relative_to(d) for d in (Path(os.path.realpath(s)) for s in scope)):
        return None
    return real


def _ancestors(root: Path, home: Path) -> list[Path]:
    """From the project's top (the root or the nearest ancestor holding .git, else just below home or /) to the
    root's parent."""
    found: list[Path] = []
    if (root / ".git").exists():  # the root is the project's top: nothing above it belongs to the project
        return found
    for parent in root.parents:
        if parent == home or parent == parent.parent:
            break
        found.append(parent)
        if (parent / ".git").exists():
            break
    return list(reversed(found))


def _ignore_spec(root: Path) -> GitIgnoreSpec:
    lines: list[str] = []
    for name in IGNORE_FILES:
        try:
            lines += (root / name).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
    try:
        return GitIgnoreSpec.from_lines(lines)
    except Exception:  # a pattern the library refuses (a planted `\\`) drops that line, not the start
        return GitIgnoreSpec.from_lines([line for line in lines if _valid_pattern(line)])


def _valid_pattern(line: str) -> bool:
    try:
        GitIgnoreSpec.from_lines([line])
    except Exception:
        return False
    return True


def _below(root: Path, file_names: list[str]) -> list[Path]:
    """Context files in sub-directories of the root, breadth first, skipping ignored and vendored trees."""
    spec = _ignore_spec(root)
    found: list[Path] = []
    queue = deque([root])
    visited = 0
    while queue and visited < MAX_DIRS_BELOW_ROOT:
        directory = queue.popleft()
        visited += 1
        if directory != root:
            found += _candidates(directory, file_names)
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if not entry.is_dir(follow_symlinks=False) or entry.name in SKIPPED_DIRS:
                continue
            relative = Path(entry.path).relative_to(root).as_posix() + "/"
            if not spec.match_file(relative):
                queue.append(Path(entry.path))
    return found


def find_context_files(root: Path, home: Path, file_names: list[str]) -> list[Path]:
    root = Path(root).resolve()
    home = Path(home).resolve()
    paths = _candidates(home / ".gemini", file_names)
    for directory in _ancestors(root, home):
        paths += _candidates(directory, file_names)
    paths += _candidates(root, file_names)
    paths += _below(root, file_names)
    unique: list[Path] = []
    for path in paths:
        if path.resolve() not in {p.resolve() for p in unique}:
            unique.append(path)
    return unique


def _import_scope(path: Path, root: Path, home: Path, include_dirs: Sequence[Path]) -> list[Path]:
    """The directories a context file may import from: the user's `~/.gemini` for the user's file; the project
    (from its top down) and the included directories for the project's files."""
    if path.parent.resolve() == (home / ".gemini").resolve():
        return [home / ".gemini"]
    top = next((d for d in (root, *root.parents) if (d / ".git").exists()), root)  # the repository, else the root
    return [top, root, *include_dirs]


def load_memory(root: Path, home: Path, file_names: list[str], *, include_dirs: Sequence[Path] = (),
                extra_files: Sequence[tuple[Path, Path]] = ()) -> Memory:
    """Every context file's text with its `@path` imports resolved, each marked with where it came from, in
    the order found. `extra_files` are (file, directory it may import from): extensions' context files."""
    root, home = Path(root).resolve(), Path(home).resolve()
    blocks: list[str] = []
    files: list[Path] = []
    trees: list[ImportNode] = []
    problems: list[str] = []
    found = [(p, _import_scope(p, root, home, include_dirs)) for p in find_context_files(root, home, file_names)]
    found += [(Path(p), [Path(d)]) for p, d in extra_files]
    for path, scope in found:
        # a project's context file (or an extension's) is read only when it really is inside the folders it may
        # import from, or the folder it was found in: a GEMINI.md that links to ~/.ssh/id_rsa is not read. The
        # user's own ~/.gemini files are theirs to link anywhere.
        if path.parent != home / ".gemini":
            elsewhere = _outside(path, [*scope, path.parent])
            if elsewhere is not None:
                problems.append(f"{path} links to {elsewhere}, outside the project: not read")
                continue
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                content = handle.read(MAX_FILE_BYTES).strip()
        except OSError:
            continue
        if not content:
            continue
        imported = process_imports(content, path, scope)
        files.append(path)
        trees.append(imported.tree)
        problems += imported.problems
        blocks.append(f"--- Context from {path} ---\n{imported.text.strip()}\n--- End of context from {path} ---")
    return Memory("\n\n".join(blocks), tuple(files), tuple(trees), tuple(problems))
