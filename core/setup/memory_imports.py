"""`@path` imports inside GEMINI.md files, resolved as Gemini CLI's import processor does.

An import is `@` at the start of the text or after whitespace, followed by a path (starting with `.`, `/` or a
letter) up to the next whitespace. It is relative to the importing file, or absolute; either way it must resolve
(symlinks followed) inside the directories the importing context file may read. Imports nest up to
`MAX_IMPORT_DEPTH` levels; a file already on the chain (a cycle) is not read again; `@` inside code (fenced
blocks, inline spans) is left alone. Every failure stays visible: an HTML comment in the text and an entry in
`problems`."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

MAX_IMPORT_DEPTH = 5
MAX_IMPORT_BYTES = 512 * 1024
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)[\s\S]*?\1")
_URL = re.compile(r"^(file|https?)://")


@dataclass
class ImportNode:
    """One file of the import tree: `path` as resolved, `written` as the importer spelled it."""

    path: Path
    written: str = ""
    imports: list[ImportNode] = field(default_factory=list)


@dataclass
class ImportResult:
    text: str
    tree: ImportNode
    problems: list[str] = field(default_factory=list)


def _code_regions(text: str) -> list[tuple[int, int]]:
    """Character ranges inside fenced code blocks or inline code spans."""
    regions: list[tuple[int, int]] = []
    offset = 0
    fence: str | None = None
    fence_start = 0
    prose_start = 0
    for line in text.splitlines(keepends=True):
        match = _FENCE.match(line)
        if fence is None and match:
            regions += _inline(text, prose_start, offset)
            fence, fence_start = match.group(1), offset
        elif fence is not None and match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                and not line.strip()[len(match.group(1)):].strip():
            regions.append((fence_start, offset + len(line)))
            fence = None
            prose_start = offset + len(line)
        offset += len(line)
    if fence is not None:  # an unclosed fence runs to the end, as in Markdown
        regions.append((fence_start, len(text)))
    else:
        regions += _inline(text, prose_start, len(text))
    return regions


def _inline(text: str, start: int, end: int) -> list[tuple[int, int]]:
    return [(start + m.start(), start + m.end()) for m in _INLINE_CODE.finditer(text[start:end])]


def find_imports(text: str) -> list[tuple[int, int, str]]:
    """(start, end, path) of every import outside code, in order."""
    regions = _code_regions(text)
    found: list[tuple[int, int, str]] = []
    for match in re.finditer(r"(?:(?<=\s)|^)@(\S+)", text):
        path = match.group(1)
        if not (path[0] in "./" or (path[0].isascii() and path[0].isalpha())):
            continue
        if any(start <= match.start() < end for start, end in regions):
            continue
        found.append((match.start(), match.end(), path))
    return found


def _inside(path: Path, directories: Sequence[Path]) -> bool:
    return any(path == d or d in path.parents for d in directories)


def _looks_like_a_path(written: str) -> bool:
    """`@someone` in prose is not an import unless it names something (a dot or a slash)."""
    return "/" in written or "." in written


_NOT_AN_IMPORT = "not an import"
_CYCLE = "cycle"


def _refusal(written: str, real: Path, allowed: Sequence[Path], chain: tuple[Path, ...], depth: int) -> str:
    """Why this import is not read ("" when it is)."""
    if _URL.match(written):
        return "URLs cannot be imported"
    if not _inside(real, allowed):
        return "outside the directories this file may import from"
    if real in chain:
        return _CYCLE
    if not real.is_file():
        if real.exists():
            return "not a file"
        return "file not found" if _looks_like_a_path(written) else _NOT_AN_IMPORT
    if depth + 1 > MAX_IMPORT_DEPTH:
        return f"more than {MAX_IMPORT_DEPTH} levels of imports"
    return ""


def process_imports(text: str, file: Path, allowed: Sequence[Path], *, depth: int = 0,
                    chain: tuple[Path, ...] = ()) -> ImportResult:
    """`text` (the content of `file`) with its imports replaced by their resolved content."""
    file = Path(file)
    node = ImportNode(file)
    problems: list[str] = []
    chain = chain or (Path(os.path.realpath(file)),)
    real_allowed = [Path(os.path.realpath(d)) for d in allowed]
    pieces: list[str] = []
    last = 0
    for start, end, written in find_imports(text):
        pieces.append(text[last:start])
        last = end
        target = Path(written) if os.path.isabs(written) else file.parent / written
        try:
            real = Path(os.path.realpath(target))
            why = _refusal(written, real, real_allowed, chain, depth)
        except (OSError, ValueError) as exc:  # a name too long, a NUL: not a path that can be read
            real, why = target, getattr(exc, "strerror", None) or str(exc)
        if why == _NOT_AN_IMPORT:
            pieces.append(f"@{written}")
            continue
        if why == _CYCLE:
            pieces.append(f"<!-- File already processed: {written} -->")
            problems.append(f"{file}: @{written}: circular import ({' -> '.join(p.name for p in (*chain, real))})")
            continue
        content = None
        if not why:
            try:
                with open(real, encoding="utf-8", errors="replace") as handle:
                    content = handle.read(MAX_IMPORT_BYTES)
            except OSError as exc:
                why = exc.strerror or str(exc)
        if content is None:
            pieces.append(f"<!-- Import failed: {written} - {why} -->")
            problems.append(f"{file}: @{written}: {why}")
            continue
        inner = process_imports(content, target, allowed, depth=depth + 1, chain=(*chain, real))
        inner.tree.written = written
        node.imports.append(inner.tree)
        problems += inner.problems
        pieces.append(f"<!-- Imported from: {written} -->\n{inner.text.strip()}\n"
                      f"<!-- End of import from: {written} -->")
    pieces.append(text[last:])
    return ImportResult("".join(pieces), node, problems)


def tree_lines(node: ImportNode, indent: int = 0) -> list[str]:
    """The import tree as indented lines (`/memory show`)."""
    label = node.written or str(node.path)
    lines = [f"{'  ' * indent}└ {label}"]
    for child in node.imports:
        lines += tree_lines(child, indent + 1)
    return lines
