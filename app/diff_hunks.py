"""Hunks of a proposed edit: split a change into hunks, apply only the accepted ones, say which were rejected.

Pure functions over strings (no Textual), so the diff-review modal and its tests share one truth."""

from __future__ import annotations

import difflib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum

CONTEXT_LINES = 3

Opcode = tuple[str, int, int, int, int]


class LineKind(StrEnum):
    context = "context"
    added = "added"
    removed = "removed"


@dataclass(frozen=True)
class DiffLine:
    """One line of a hunk; `old_no`/`new_no` are 1-based and None on the side the line does not exist."""

    kind: LineKind
    old_no: int | None
    new_no: int | None
    text: str
    no_newline: bool = False  # the last line of its file, without a final newline


@dataclass(frozen=True)
class Hunk:
    """A group of nearby changes with their context, as one `@@` block of a unified diff."""

    index: int
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: tuple[DiffLine, ...]
    opcodes: tuple[Opcode, ...]

    @property
    def number(self) -> int:
        return self.index + 1

    @property
    def header(self) -> str:
        return f"@@ -{self.old_start},{self.old_count} +{self.new_start},{self.new_count} @@"

    @property
    def added(self) -> int:
        return sum(1 for line in self.lines if line.kind is LineKind.added)

    @property
    def removed(self) -> int:
        return sum(1 for line in self.lines if line.kind is LineKind.removed)

    @property
    def changed_range(self) -> str:
        """Where the change sits in the original file, in words the model can act on."""
        changes = [op for op in self.opcodes if op[0] != "equal"]
        first, last = changes[0][1], max(op[2] for op in changes)
        if last > first:
            return f"line {first + 1}" if last == first + 1 else f"lines {first + 1}-{last}"
        return f"inserted after line {first}" if first else "inserted at the start"


def split_lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def compute_hunks(original: str, new: str, context: int = CONTEXT_LINES) -> tuple[Hunk, ...]:
    """The hunks of the change from `original` to `new`, grouped as `difflib.unified_diff` groups them."""
    old_lines, new_lines = split_lines(original), split_lines(new)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines)
    hunks = []
    for index, group in enumerate(matcher.get_grouped_opcodes(context)):
        lines: list[DiffLine] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines.extend(_line(LineKind.context, i1 + k + 1, j1 + k + 1, old_lines[i1 + k]) for k in range(i2 - i1))
                continue
            lines.extend(_line(LineKind.removed, i + 1, None, old_lines[i]) for i in range(i1, i2))
            lines.extend(_line(LineKind.added, None, j + 1, new_lines[j]) for j in range(j1, j2))
        first, last = group[0], group[-1]
        old_count, new_count = last[2] - first[1], last[4] - first[3]
        # unified-diff convention: an empty range starts at the line before it
        old_start = first[1] + 1 if old_count else first[1]
        new_start = first[3] + 1 if new_count else first[3]
        hunks.append(Hunk(index, old_start, old_count, new_start, new_count, tuple(lines), tuple(group)))
    return tuple(hunks)


def _line(kind: LineKind, old_no: int | None, new_no: int | None, raw: str) -> DiffLine:
    text = raw.rstrip("\r\n")
    return DiffLine(kind, old_no, new_no, text, no_newline=not raw.endswith("\n"))


def apply_hunks(original: str, new: str, hunks: Sequence[Hunk], accepted: Collection[int]) -> str:
    """`original` with only the hunks whose index is in `accepted` applied (all accepted gives `new`)."""
    old_lines, new_lines = split_lines(original), split_lines(new)
    out: list[str] = []
    position = 0
    for hunk in hunks:
        for tag, i1, i2, j1, j2 in hunk.opcodes:
            if tag == "equal":
                continue
            out.extend(old_lines[position:i1])
            out.extend(new_lines[j1:j2] if hunk.index in accepted else old_lines[i1:i2])
            position = i2
    out.extend(old_lines[position:])
    return "".join(out)


def rejection_feedback(hunks: Sequence[Hunk], rejected: Collection[int], file_path: str) -> str:
    """What the model is told when the user applied only part of its edit."""
    parts = [f"{hunk.number} ({hunk.changed_range})" for hunk in hunks if hunk.index in rejected]
    if len(parts) == len(hunks):
        return (f"The user rejected every hunk ({', '.join(parts)}) of the proposed change to {file_path}; "
                "the file was not changed.")
    return (f"The user rejected hunk(s) {', '.join(parts)} of the proposed change to {file_path}; "
            "only the other hunks were applied. The rejected lines keep their original content.")
