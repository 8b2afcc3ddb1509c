"""One directory's gitignore-style rules, compiled once into lookups and two combined regexes for fast matching."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

from gemini_tui.tools.workspace.glob_pattern import translate_glob

_GLOB_CHARS = frozenset("*?[\\")
_ANY_PARENT = "^(?:.+/)?"  # how pathspec starts the regex of a pattern that matches at any depth
_DIR_MARK = "(?P<ps_d>/)"
_UNKNOWN = object()


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
            return next((rule for regex, rule in self.one_by_one if regex.fullmatch(text)), None)
        found = self.regex.fullmatch(text)
        return self.rules[found.lastindex - 1] if found and found.lastindex else None


class IgnoreRules:
    """The patterns of one directory's ignore files (gitignore syntax), matched against its descendants.

    Most real patterns have no slash, so they are decided from the entry's name alone: plain names by a dict
    lookup, `*.ext` patterns by suffix lookups, other name globs by one combined regex, and the outcome is
    memoized per name. Patterns with a slash are matched against the path relative to the directory, and only
    those whose literal start fits the directory being listed are tried there (see `at`). Callers prune
    ignored directories, so a path's parents have always been checked before the path itself."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._names: dict[str, list[_Rule]] = {}
        self._suffixes: dict[str, list[_Rule]] = {}
        name_globs: list[tuple[str, _Rule]] = []
        # (regex, literal start, where its matches can be, rule)
        self._path_globs: list[tuple[str, str, re.Pattern[str] | None, _Rule]] = []
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
            if body is not None and body.startswith("!"):
                body = body[1:]
            dir_only = body is not None and body.endswith("/") and not body.endswith("//")
            if body is not None and dir_only:
                body = body[:-1]
            rule = _Rule(index, bool(include), dir_only)
            regex = regex.replace(_DIR_MARK, "/")
            if not regex.startswith("^"):
                regex = "(?s:.*?)" + regex  # pathspec writes a few (`*`, `*/`, ...) for search()
            if body is not None and body.endswith("/**") and regex.startswith("^") and regex.endswith("/"):
                # `a/**` matches what is inside a/, and `a/**/` the directories inside it, never a/ itself
                regex += ".+/" if dir_only else ".+"
            if body and "/" not in body and body != "**" and regex.startswith(_ANY_PARENT):
                if not _GLOB_CHARS.intersection(body):
                    self._names.setdefault(body, []).append(rule)
                elif len(body) > 1 and body[0] == "*" and not _GLOB_CHARS.intersection(body[1:]):
                    self._suffixes.setdefault(body[1:], []).append(rule)
                else:
                    name_globs.append((regex[len(_ANY_PARENT):], rule))
            else:
                self._path_globs.append((regex, _literal_start(body), _parent_regex(body), rule))
        self.pattern_count = count
        self._suffix_lengths = tuple(sorted({len(s) for s in self._suffixes}))
        self._name_globs = _Alternation(name_globs)
        self._by_name: dict[tuple[str, bool], _Rule | None] = {}
        self._alternations: dict[tuple[int, ...], _Alternation] = {}
        self._views: dict[str, DirectoryRules] = {}
        # Path patterns indexed by the first directory their matches must be in, so that placing the rules in a
        # directory looks only at the few that can apply there; `_anywhere` lists those with no known first one.
        self._by_first_dir: dict[str, list[int]] = {}
        self._anywhere: list[int] = []
        for index, (_, literal, _, _) in enumerate(self._path_globs):
            first, slash, _ = literal.partition("/")
            if slash:
                self._by_first_dir.setdefault(first, []).append(index)
            else:
                self._anywhere.append(index)

    def __bool__(self) -> bool:
        return self.pattern_count > 0

    def at(self, prefix: str) -> DirectoryRules:
        """These rules, ready to judge the entries of the descendant directory `prefix` (`a/b/`, or `` for the
        directory itself)."""
        view = self._views.get(prefix)
        if view is None:
            if prefix:
                candidates = sorted([*self._anywhere, *self._by_first_dir.get(prefix.partition("/")[0], ())])
            else:
                candidates = list(range(len(self._path_globs)))
            relevant = tuple(i for i in candidates if _fits(self._path_globs[i][1], self._path_globs[i][2], prefix))
            alternation = self._alternations.get(relevant)
            if alternation is None:
                alternation = _Alternation([(self._path_globs[i][0], self._path_globs[i][3]) for i in relevant])
                self._alternations[relevant] = alternation
            view = DirectoryRules(self, prefix, alternation)
            if len(self._views) < 100_000:
                self._views[prefix] = view
        return view

    def match(self, name: str, rel: str, is_dir: bool) -> bool | None:
        """True if the entry is ignored, False if a negated rule re-includes it, None if no rule speaks.

        `name` is the entry's base name, `rel` its path relative to this directory (`/`-separated)."""
        return self.at(rel[: len(rel) - len(name)]).match(name, is_dir)

    def name_rule(self, name: str, is_dir: bool) -> _Rule | None:
        """The last rule without a slash that matches `name`, memoized: names repeat across a tree."""
        key = (name, is_dir)
        known = self._by_name.get(key, _UNKNOWN)  # one lookup: another thread may clear the memo meanwhile
        if known is not _UNKNOWN:
            return known  # type: ignore[return-value]
        best: _Rule | None = None
        for rule in self._names.get(name, ()):
            if (is_dir or not rule.dir_only) and (best is None or rule.index > best.index):
                best = rule
        for length in self._suffix_lengths:
            for rule in self._suffixes.get(name[-length:], ()):
                if (is_dir or not rule.dir_only) and (best is None or rule.index > best.index):
                    best = rule
        rule = self._name_globs.match(name + "/" if is_dir else name)
        if rule is not None and (best is None or rule.index > best.index):
            best = rule
        if len(self._by_name) > 200_000:
            self._by_name.clear()
        self._by_name[key] = best
        return best


class DirectoryRules:
    """One directory's rules as they apply inside one of its descendants (`prefix`): the per-entry check."""

    __slots__ = ("_paths", "_prefix", "_rules")

    def __init__(self, rules: IgnoreRules, prefix: str, paths: _Alternation) -> None:
        self._rules = rules
        self._prefix = prefix
        self._paths = paths

    def match(self, name: str, is_dir: bool) -> bool | None:
        best = self._rules.name_rule(name, is_dir)
        if self._paths.regex is not None:
            rule = self._paths.match(f"{self._prefix}{name}/" if is_dir else self._prefix + name)
            if rule is not None and (best is None or rule.index > best.index):
                best = rule
        return None if best is None else best.ignore

    def descend(self, name: str) -> DirectoryRules:
        return self._rules.at(f"{self._prefix}{name}/")


def _fits(literal: str, parent: re.Pattern[str] | None, prefix: str) -> bool:
    """Whether a path pattern can match an entry of the directory `prefix`."""
    return (literal.startswith(prefix) or prefix.startswith(literal)) and (parent is None or
                                                                          parent.match(prefix) is not None)


def _literal_start(body: str | None) -> str:
    """The text every path matching the pattern starts with (`` when unknown or when it may match anywhere)."""
    if body is None:
        return ""
    if "/" not in body.rstrip("/") and not body.startswith("/"):
        return ""  # matches at any depth
    body = body.lstrip("/")
    cut = next((i for i, ch in enumerate(body) if ch in _GLOB_CHARS), len(body))
    return body[:cut]


def _parent_regex(body: str | None) -> re.Pattern[str] | None:
    """For a pattern whose matches all sit in directories of one shape (`**/fixtures/*.bin`, `a/b/c`): a
    regex for those directories' prefixes (`a/b/`), so that it is tried only there. None when unknown."""
    if body is None or "{" in body:
        return None
    segments = body.lstrip("/").split("/")
    parents, last = segments[:-1], segments[-1]
    if not parents or "**" in last or parents == ["**"] or any("**" in seg for seg in parents[1:]):
        return None
    if "**" in parents[0] and parents[0] != "**":
        return None
    return re.compile(f"(?:{translate_glob('/'.join(parents))}/)\\Z", re.DOTALL)
