"""Hunks of a proposed edit: split a change into hunks, apply only the accepted ones, say which were rejected.

Pure functions over strings (no Textual), so the diff-review modal and its tests share one truth."""

from __future__ import annotations

import difflib
import re
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


_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def parse_unified(diff: str) -> tuple[Hunk, ...]:
    """The hunks of a unified diff text (linear time; `compute_hunks` diffs again, which is slow on big files).

    Raises ValueError when the text is not a unified diff."""
    hunks: list[Hunk] = []
    lines: list[DiffLine] = []
    header: tuple[int, int, int, int] | None = None
    old_no = new_no = 0

    def close() -> None:
        if header is not None:
            hunks.append(Hunk(len(hunks), *header, tuple(lines), _opcodes(lines, header)))
            lines.clear()

    for raw in diff.splitlines():
        if match := _HUNK_HEADER.match(raw):
            close()
            a, b, c, d = (int(g) if g is not None else 1 for g in match.groups())
            header = (a, b, c, d)
            old_no, new_no = (a if b else a + 1), (c if d else c + 1)
        elif header is None:
            continue  # the ---/+++ file header
        elif raw.startswith("\\"):
            if lines:
                lines[-1] = DiffLine(lines[-1].kind, lines[-1].old_no, lines[-1].new_no, lines[-1].text, True)
        elif raw[:1] == " " or raw == "":
            lines.append(DiffLine(LineKind.context, old_no, new_no, raw[1:]))
            old_no, new_no = old_no + 1, new_no + 1
        elif raw[0] == "-":
            lines.append(DiffLine(LineKind.removed, old_no, None, raw[1:]))
            old_no += 1
        elif raw[0] == "+":
            lines.append(DiffLine(LineKind.added, None, new_no, raw[1:]))
            new_no += 1
        else:
            raise ValueError(f"not a unified diff line: {raw[:40]!r}")
    close()
    return tuple(hunks)


def _opcodes(lines: Sequence[DiffLine], header: tuple[int, int, int, int]) -> tuple[Opcode, ...]:
    """SequenceMatcher-style opcodes (0-based, end exclusive) for the lines of one parsed hunk."""
    a, b, c, d = header
    i, j = (a - 1 if b else a), (c - 1 if d else c)
    ops: list[Opcode] = []
    k = 0
    while k < len(lines):
        if lines[k].kind is LineKind.context:
            start = k
            while k < len(lines) and lines[k].kind is LineKind.context:
                k += 1
            ops.append(("equal", i, i + k - start, j, j + k - start))
            i, j = i + k - start, j + k - start
            continue
        removed = added = 0
        while k < len(lines) and lines[k].kind is not LineKind.context:
            removed += lines[k].kind is LineKind.removed
            added += lines[k].kind is LineKind.added
            k += 1
        tag = "replace" if removed and added else "delete" if removed else "insert"
        ops.append((tag, i, i + removed, j, j + added))
        i, j = i + removed, j + added
    return tuple(ops)


def hunks_of(original: str, new: str, unified: str | None = None) -> tuple[Hunk, ...]:
    """The hunks of a change, parsed from its unified diff when that is given and provably matches both
    texts (applying all hunks gives `new`, none gives `original`); otherwise diffed again."""
    if unified:
        try:
            hunks = parse_unified(unified)
        except ValueError:
            hunks = None
        if hunks is not None and (hunks or original == new):
            everything = {h.index for h in hunks}
            try:
                if apply_hunks(original, new, hunks, everything) == new and apply_hunks(original, new, hunks, ()) \
                        == original and _texts_match(original, new, hunks):
                    return hunks
            except IndexError:
                pass
    return compute_hunks(original, new)


def _texts_match(original: str, new: str, hunks: Sequence[Hunk]) -> bool:
    """The parsed lines say what the texts hold at those line numbers (a stale diff text must not be trusted)."""
    old_lines, new_lines = split_lines(original), split_lines(new)
    for hunk in hunks:
        for line in hunk.lines:
            if line.old_no is not None and old_lines[line.old_no - 1].rstrip("\r\n") != line.text:
                return False
            if line.new_no is not None and new_lines[line.new_no - 1].rstrip("\r\n") != line.text:
                return False
    return True


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
