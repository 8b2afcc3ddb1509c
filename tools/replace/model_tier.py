"""The model tier of `replace`'s correction: what to ask the model, and when its answer is safe to use.

An answer is used only when its search text occurs exactly the expected number of times in the file and both
texts stay close to what the model first sent (so a confused answer can fail the edit, never move it to an
unrelated place or write unrelated text)."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from gemini_tui.core.models.edit_fixer import EditFix, EditFixRequest
from gemini_tui.tools.replace.correction import EditMiss, closest_region

MIN_SIMILARITY = 0.75  # of the answer to old_string / new_string, ignoring whitespace, quotes and escapes
WHOLE_FILE_CHARS = 6_000  # a file this small is sent whole as the region
_NOISE = re.compile(r"[\s\\'\"`]+")


def _loose(text: str) -> str:
    return _NOISE.sub("", text)


def _similar(a: str, b: str) -> bool:
    a, b = _loose(a), _loose(b)
    if a == b:
        return True
    if not a or not b:
        return False
    return SequenceMatcher(None, a, b, autojunk=False).ratio() >= MIN_SIMILARITY


def fix_request(path: str, content: str, old: str, new: str, expected: int, miss: EditMiss | None) -> EditFixRequest:
    normalized = content.replace("\r\n", "\n")
    if len(normalized) <= WHOLE_FILE_CHARS:
        region = normalized
    else:
        closest = (miss.closest if miss is not None else None) or closest_region(normalized, old, max_lines=40)
        if closest is None:
            region = normalized[:WHOLE_FILE_CHARS]
        else:
            lines = normalized.split("\n")
            first, last = max(0, closest[0] - 6), min(len(lines), closest[1] + 6)
            region = "\n".join(lines[first:last])
    if miss is not None and miss.found:
        problem = f"old_string occurs {miss.found} times, but {expected} were expected"
    elif miss is not None and miss.ambiguous:
        problem = f"old_string was not found exactly; a loose match found {miss.ambiguous} places, not {expected}"
    else:
        problem = "old_string was not found in the file (0 occurrences)"
    return EditFixRequest(path, old, new, region, problem)


def accept_fix(content: str, fix: EditFix, old: str, new: str, expected: int) -> str | None:
    """The file after the model's corrected edit, or None when the answer is not safe to use."""
    search, replace = fix.search, fix.replace
    if "\r\n" in content and "\r\n" not in search and content.count(search) == 0:
        search, replace = search.replace("\n", "\r\n"), replace.replace("\n", "\r\n")
    if not search or search == replace or content.count(search) != expected:
        return None
    if not _similar(search, old) or not _similar(replace, new):
        return None
    return content.replace(search, replace)
