"""One directory's gitignore-style rules, compiled once into lookups and two combined regexes for fast matching."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

_GLOB_CHARS = frozenset("*?[\\")
_ANY_PARENT = "^(?:.+/)?"  # how pathspec starts the regex of a pattern that matches at any depth
_DIR_MARK = "(?P<ps_d>/)"


@dataclass(frozen=True)
class _Rule:
    index: int  # position in the file: the last matching rule decides, as in git
    ignore: bool  # False for a `!negated` rule, which re-includes
    dir_only: bool = False


class _Alternation:
    """Several anchored regexes as one, tried last-rule-first so the first alternative that matches is the
    rule git would apply."""

    def __init__(self, items: list[tuple[str, _Rule]]) -> None:
        ordered = sorted(items, key=lambda item: item[1].index, reverse=True)
        self.rules = [rule for _, rule in ordered]
        self.regex = re.compile("|".join(f"({body})" for body, _ in ordered)) if ordered else None
        self.one_by_one: list[tuple[re.Pattern[str], _Rule]] | None = None
        if self.regex is not None and self.regex.groups != len(ordered):
            # A pattern brought its own groups, so group numbers no longer name rules: match them one by one.
            self.one_by_one = [(re.compile(body), rule) for body, rule in ordered]

    def match(self, text: str) -> _Rule | None:
        if self.regex is None:
            return None
        if self.one_by_one is not None:
            return next((rule for regex, rule in self.one_by_one if regex.match(text)), None)
        found = self.regex.match(text)
        return self.rules[found.lastindex - 1] if found and found.lastindex else None


class IgnoreRules:
    """The patterns of one directory's ignore files (gitignore syntax), matched against its descendants.

    Most real patterns have no slash, so they are decided from the entry's name alone: plain names by a dict
    lookup, `*.ext` patterns by suffix lookups, other name globs by one combined regex. Only patterns with a
    slash are matched against the path relative to the directory. Callers prune ignored directories, so a
    path's parents have always been checked before the path itself."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._names: dict[str, list[_Rule]] = {}
        self._suffixes: dict[str, list[_Rule]] = {}
        self._suffix_lengths: tuple[int, ...] = ()
        name_globs: list[tuple[str, _Rule]] = []
        path_globs: list[tuple[str, _Rule]] = []
        count = 0
        for index, line in enumerate(lines):
            try:
                regex, include = GitIgnoreSpecPattern.pattern_to_regex(line)
            except ValueError:
                continue  # an invalid pattern is skipped, as git does
            if regex is None or include is None:
                continue
            count += 1
            body = line.rstrip(" ") if "\\" not in line else None
            negated = body is not None and body.startswith("!")
            if body is not None and negated:
                body = body[1:]
            dir_only = body is not None and body.endswith("/") and not body.endswith("//")
            if body is not None and dir_only:
                body = body[:-1]
            rule = _Rule(index, bool(include), dir_only)
            regex = regex.replace(_DIR_MARK, "/")
            if body and "/" not in body and body != "**" and regex.startswith(_ANY_PARENT):
                if not _GLOB_CHARS.intersection(body):
                    self._names.setdefault(body, []).append(rule)
                elif body[0] == "*" and not _GLOB_CHARS.intersection(body[1:]):
                    self._suffixes.setdefault(body[1:], []).append(rule)
                else:
                    name_globs.append((regex[len(_ANY_PARENT):], rule))
            else:
                path_globs.append((regex, rule))
        self.pattern_count = count
        self._suffix_lengths = tuple(sorted({len(s) for s in self._suffixes}))
        self._name_globs = _Alternation(name_globs)
        self._path_globs = _Alternation(path_globs)

    def __bool__(self) -> bool:
        return self.pattern_count > 0

    def match(self, name: str, rel: str, is_dir: bool) -> bool | None:
        """True if the entry is ignored, False if a negated rule re-includes it, None if no rule speaks.

        `name` is the entry's base name, `rel` its path relative to this directory (`/`-separated)."""
        best: _Rule | None = None
        for rule in self._names.get(name, ()):
            if (is_dir or not rule.dir_only) and (best is None or rule.index > best.index):
                best = rule
        for length in self._suffix_lengths:
            for rule in self._suffixes.get(name[-length:], ()):
                if (is_dir or not rule.dir_only) and (best is None or rule.index > best.index):
                    best = rule
        tail = "/" if is_dir else ""
        for alternation, text in ((self._name_globs, name), (self._path_globs, rel)):
            rule = alternation.match(text + tail)
            if rule is not None and (best is None or rule.index > best.index):
                best = rule
        return None if best is None else best.ignore
