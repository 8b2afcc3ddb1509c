"""Changes inside a line: which character ranges of a removed line and of the added line that replaced it differ.

Pure functions (no Textual), so the diff view and its tests share one truth. Lines are compared word by word;
the common prefix and suffix are trimmed first, so a one-character change 6,000 characters into a minified
line costs two string scans, not a token diff of the whole line."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

Range = tuple[int, int]  # start, end (exclusive) character offsets

_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
MAX_TOKENS = 4000  # beyond this the middle is shown as one changed range (a token diff would be slow)
MIN_SHARED = 0.25  # below this share of unchanged characters the lines are unrelated: no word highlight


@dataclass(frozen=True)
class WordDiff:
    """The changed ranges of the old line and of the new line. A side with nothing of its own at a change (text
    only inserted, or only deleted, there) has an empty range where the other side's text goes: where the change
    is on that side. Unrelated lines have one empty range at 0 each (no word highlight)."""

    old: tuple[Range, ...]
    new: tuple[Range, ...]

    @property
    def first_column(self) -> tuple[int, int]:
        """Where the first change starts in the old and in the new line (0 when there is none)."""
        return (self.old[0][0] if self.old else 0, self.new[0][0] if self.new else 0)


EMPTY = WordDiff((), ())


def common_affixes(old: str, new: str) -> tuple[int, int]:
    """Lengths of the common prefix and of the common suffix (not overlapping the prefix)."""
    limit = min(len(old), len(new))
    prefix = 0
    # compare in blocks first: long equal stretches are the common case in long lines
    step = 256
    while prefix + step <= limit and old[prefix:prefix + step] == new[prefix:prefix + step]:
        prefix += step
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    limit -= prefix
    while suffix + step <= limit and old[len(old) - suffix - step:len(old) - suffix] == \
            new[len(new) - suffix - step:len(new) - suffix]:
        suffix += step
    while suffix < limit and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    return prefix, suffix


MAX_SNAP = 40  # a range widens to its whole word only for words this long (not a 6,000-character base64 run)


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _snap(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen a range to whole words, so `foo` -> `food` highlights the word, not `d`."""
    left = start
    while left > 0 and start - left < MAX_SNAP and left < len(text) and _is_word(text[left - 1]) \
            and _is_word(text[left]):
        left -= 1
    right = end
    while 0 < right < len(text) and right - end < MAX_SNAP and _is_word(text[right]) and _is_word(text[right - 1]):
        right += 1
    left = left if start - left < MAX_SNAP else start
    right = right if right - end < MAX_SNAP else end
    return left, right


def word_diff(old: str, new: str) -> WordDiff:
    """The ranges that differ between two versions of one line."""
    if old == new:
        return EMPTY
    prefix, suffix = common_affixes(old, new)
    old_mid, new_mid = old[prefix:len(old) - suffix], new[prefix:len(new) - suffix]
    old_tokens, new_tokens = _TOKEN.findall(old_mid), _TOKEN.findall(new_mid)
    if len(old_tokens) + len(new_tokens) > MAX_TOKENS or not old_tokens or not new_tokens:
        old_ranges = [(prefix, len(old) - suffix)]
        new_ranges = [(prefix, len(new) - suffix)]
    else:
        old_ranges, new_ranges = [], []
        old_at, new_at = _offsets(old_tokens, prefix), _offsets(new_tokens, prefix)
        matcher = difflib.SequenceMatcher(None, old_tokens, new_tokens, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":  # (an insertion is an empty range on the old side, a deletion on the new)
                old_ranges.append((old_at[i1], old_at[i2]))
                new_ranges.append((new_at[j1], new_at[j2]))
    shared = max(len(old), len(new)) - max(sum(e - s for s, e in old_ranges), sum(e - s for s, e in new_ranges))
    if max(len(old), len(new)) and shared / max(len(old), len(new)) < MIN_SHARED:
        return _whole(old, new)
    return WordDiff(_merge(old, old_ranges), _merge(new, new_ranges))


def _whole(old: str, new: str) -> WordDiff:
    """Unrelated lines: no word highlight, but where the change starts is still known (column 0)."""
    return WordDiff(((0, 0),) if old else (), ((0, 0),) if new else ())


def _offsets(tokens: list[str], start: int) -> list[int]:
    offsets = [start]
    for token in tokens:
        offsets.append(offsets[-1] + len(token))
    return offsets


def _merge(text: str, ranges: list[Range]) -> tuple[Range, ...]:
    """Snap to words and join ranges that touch or are separated by spaces only (an empty range only joins one
    it touches: it is a place, not text)."""
    merged: list[Range] = []
    for start, end in ranges:
        start, end = _snap(text, start, end) if end > start else (start, end)
        if merged and (start <= merged[-1][1] or (end > start and not text[merged[-1][1]:start].strip())):
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return tuple(merged)
