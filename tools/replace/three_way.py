"""A three-way merge of one line: how the file differs from old_string's line, carried into new_string's line.

When old_string's line is not exactly the file's (a typo, spaces, curly quotes) and new_string changes that
line, the line written must be the file's line with the model's change, not the model's line with its slip.
Both are differences from old_string's line; when they touch different characters, both apply."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

# a change of the base line: characters [start, end) become `text`
_Change = tuple[int, int, str]


def _changes(base: str, other: str) -> list[_Change]:
    return [(i1, i2, other[j1:j2]) for tag, i1, i2, j1, j2 in
            SequenceMatcher(None, base, other, autojunk=False).get_opcodes() if tag != "equal"]


_TOKEN = re.compile(r"\w+|\S")


def _touched(base: str, change: _Change) -> set[int]:
    """The words (and single marks) of `base` a change touches: those it overlaps, or, for an insertion, the
    one it lands inside (an insertion between two words touches neither)."""
    start, end, _ = change
    return {n for n, token in enumerate(_TOKEN.finditer(base))
            if (token.start() < end and start < token.end()) or token.start() < start == end < token.end()}


def _apart(base: str, a: _Change, b: _Change) -> bool:
    """Whether two changes of the base touch different characters and different words (a word both change,
    as `raed` fixed to `read` by the file and rewritten as `load` by the model, has no sure result)."""
    if a[0] == a[1] == b[0] == b[1]:
        return False  # two insertions at one place: which goes first is a guess
    if not (a[1] <= b[0] or b[1] <= a[0]):
        return False
    return not _touched(base, a) & _touched(base, b)


def _separator(base: str, change: _Change, mine: list[_Change]) -> bool:
    """Whether `change` removes spaces that one of `mine` uses to set its text apart (the model wrote `x  `
    and appended `# note` to it): kept, else the text would be glued to what precedes it."""
    start, end, text = change
    return not text and base[start:end].isspace() and any(
        a == b == end and added[:1] and not added[0].isspace() for a, b, added in mine)


def carry(base: str, theirs: str, ours: str) -> str | None:
    """`ours` (new_string's line, made from `base`) with the file's differences from `base` (`theirs`) applied
    too; None when both change the same characters."""
    if ours == base or theirs == ours:
        return theirs
    if theirs == base:
        return ours
    mine, others = _changes(base, ours), _changes(base, theirs)
    # the same fix made on both sides is made once
    others = [change for change in others if change not in mine and not _separator(base, change, mine)]
    if any(not _apart(base, a, b) for a in mine for b in others):
        return None
    out: list[str] = []
    cursor = 0
    for start, end, text in sorted(mine + others, key=lambda change: (change[0], change[1])):
        out.append(base[cursor:start])
        out.append(text)
        cursor = end
    out.append(base[cursor:])
    return "".join(out)
