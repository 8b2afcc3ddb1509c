"""Glob patterns (`**`, `*`, `?`, `[...]`, `{a,b}`) compiled to regexes over `/`-separated relative paths."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class GlobPattern:
    """A compiled glob. A pattern without a slash (or `**/name`) matches a file's name at any depth, as the
    seed's `"*.ts"` example finding `src/subdir/file2.ts` shows; other patterns match the whole relative path."""

    text: str
    regex: re.Pattern[str]
    matches_name: bool
    suffix: str | None = None  # for `*.ext`-like patterns: a plain suffix test instead of the regex
    case_sensitive: bool = True

    def match(self, rel: str) -> bool:
        if not self.matches_name:
            return self.regex.match(rel) is not None
        return self.match_name(rel.rpartition("/")[2])

    def wants(self, name: str, rel: str) -> bool:
        """`match` for a file whose name and relative path are both at hand (a `Workspace.scan` filter)."""
        return self.match_name(name) if self.matches_name else self.regex.match(rel) is not None

    def match_name(self, name: str) -> bool:
        """For patterns that match names (`matches_name`): whether the file name `name` matches."""
        if self.suffix is not None:
            return (name if self.case_sensitive else name.lower()).endswith(self.suffix)
        return self.regex.match(name) is not None


def compile_glob(pattern: str, *, case_sensitive: bool = True) -> GlobPattern:
    text = pattern.strip()
    while text.startswith("./"):
        text = text[2:]
    body = text[3:] if text.startswith("**/") else text
    matches_name = "/" not in body and "**" not in body
    source = translate_glob(body if matches_name else text)
    flags = re.DOTALL | (0 if case_sensitive else re.IGNORECASE)
    suffix = None
    if matches_name and body.startswith("*") and not has_magic(body[1:]) and "\\" not in body:
        suffix = body[1:] if case_sensitive else body[1:].lower()
    return GlobPattern(pattern, re.compile(f"(?:{source})\\Z", flags), matches_name, suffix, case_sensitive)


def has_magic(pattern: str) -> bool:
    """Whether `pattern` is a glob rather than a plain path."""
    return any(ch in pattern for ch in "*?[{")


def translate_glob(pattern: str) -> str:
    """The regex source (unanchored) for a glob over `/`-separated paths."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "*":
            star_end = i
            while star_end < n and pattern[star_end] == "*":
                star_end += 1
            whole_segment = (i == 0 or pattern[i - 1] == "/") and (star_end == n or pattern[star_end] == "/")
            if star_end - i >= 2 and whole_segment:
                if star_end == n:
                    out.append(".*")
                    i = star_end
                else:
                    out.append("(?:.*/)?")  # zero or more directories
                    i = star_end + 1
            else:
                out.append("[^/]*")
                i = star_end
        elif ch == "?":
            out.append("[^/]")
            i += 1
        elif ch == "[":
            end = _class_end(pattern, i)
            if end < 0:
                out.append(re.escape(ch))
                i += 1
            else:
                out.append(_translate_class(pattern[i + 1:end]))
                i = end + 1
        elif ch == "{":
            end, alternatives = _brace(pattern, i)
            if end < 0:
                out.append(re.escape(ch))
                i += 1
            else:
                out.append("(?:" + "|".join(translate_glob(alt) for alt in alternatives) + ")")
                i = end + 1
        elif ch == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(ch))
            i += 1
    return "".join(out)


def _class_end(pattern: str, start: int) -> int:
    j = start + 1
    if j < len(pattern) and pattern[j] in "!^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    end = pattern.find("]", j)
    return end


def _translate_class(inner: str) -> str:
    negate = inner[:1] in ("!", "^")
    if negate:
        inner = inner[1:]
    inner = inner.replace("\\", "\\\\").replace("^", "\\^").replace("[", "\\[")
    return f"[^/{inner}]" if negate else f"(?![/])[{inner}]"


def _brace(pattern: str, start: int) -> tuple[int, list[str]]:
    """The index of the matching `}` and the top-level alternatives, or (-1, []) when it is not a brace set."""
    depth = 0
    alternatives: list[str] = []
    current = start + 1
    for j in range(start, len(pattern)):
        ch = pattern[j]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                alternatives.append(pattern[current:j])
                return (j, alternatives) if len(alternatives) > 1 else (-1, [])
        elif ch == "," and depth == 1:
            alternatives.append(pattern[current:j])
            current = j + 1
    return -1, []


def expand_braces(glob: str) -> list[str]:
    """`src/**/*.{ts,tsx}` -> [`src/**/*.ts`, `src/**/*.tsx`]; nested braces are expanded too."""
    depth = open_at = 0
    for i, char in enumerate(glob):
        if char == "{":
            if depth == 0:
                open_at = i
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                options, level, start = [], 0, open_at + 1
                for j in range(open_at + 1, i):
                    if glob[j] == "{":
                        level += 1
                    elif glob[j] == "}":
                        level -= 1
                    elif glob[j] == "," and level == 0:
                        options.append(glob[start:j])
                        start = j + 1
                options.append(glob[start:i])
                if len(options) == 1:
                    continue
                return [out for option in options for out in expand_braces(glob[:open_at] + option + glob[i + 1:])]
    return [glob]
