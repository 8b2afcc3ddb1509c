"""Approvals room: whether a policy rule's regular expression can ever match the call's JSON it is tested on.

Gemini CLI tests `commandRegex` right after `"command":"` in the call's arguments written as JSON, which always
ends with `}`: a `^` after that text, or a `$` after a character that cannot be that `}`, never matches, and a
rule holding one is silently dead. The check walks the parsed pattern with a handful of states (at the text's
start? may the last character be `}`? at its end?) and says "never" only when no path survives: it may miss a
dead pattern (lookarounds, back-references count as anything), never condemn a live one."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, NamedTuple

_CLOSE = ord("}")


class _State(NamedTuple):
    start: bool  # nothing consumed yet
    brace: bool  # the last character consumed may be `}` (the JSON's last)
    end: bool  # a `$` was passed: nothing more can be consumed


def never_matches(pattern: str) -> bool:
    """True when `pattern` (Python syntax) cannot match any text that ends with `}`, wherever it starts."""
    parsed = _parse(pattern)
    if parsed is None:
        return False
    return not _sequence(parsed, {_State(True, False, False)})


def dead_alternatives(pattern: str) -> list[str]:
    """The top-level `a|b` alternatives of `pattern` that can never match (as written, from the pattern)."""
    parsed = _parse(pattern)
    if parsed is None or len(parsed) != 1 or _name(parsed[0][0]) != "BRANCH":
        return []
    pieces = _split_top_level(pattern)
    branches = parsed[0][1][1]
    if len(pieces) != len(branches):
        return []
    return [piece for piece, branch in zip(pieces, branches, strict=True)
            if not _sequence(branch, {_State(True, False, False)})]


def _parse(pattern: str) -> Any:
    from re import _parser  # pyright: ignore[reportAttributeAccessIssue]  # the stdlib's own parser of patterns

    try:
        return list(_parser.parse(pattern))
    except (re.error, RecursionError, OverflowError):
        return None


def _name(op: Any) -> str:
    return str(op)


def _sequence(items: Iterable[Any], states: set[_State]) -> set[_State]:
    for op, value in items:
        states = _step(_name(op), value, states)
        if not states:
            break
    return states


def _consume(states: set[_State], brace: bool) -> set[_State]:
    return {_State(False, brace, False)} if any(not s.end for s in states) else set()


def _step(op: str, value: Any, states: set[_State]) -> set[_State]:
    if op == "LITERAL":
        return _consume(states, value == _CLOSE)
    if op == "NOT_LITERAL":
        return _consume(states, value != _CLOSE)
    if op == "IN":
        return _consume(states, _set_may_hold_close(value))
    if op == "AT":
        where = _name(value)
        if where in ("AT_BEGINNING", "AT_BEGINNING_STRING"):
            return {s for s in states if s.start}
        if where in ("AT_END", "AT_END_STRING"):
            return {_State(False, True, True) for s in states if s.brace}
        return states  # word boundaries: no claim
    if op == "SUBPATTERN":
        return _sequence(value[-1], states)
    if op == "ATOMIC_GROUP":
        return _sequence(value, states)
    if op == "BRANCH":
        found: set[_State] = set()
        for branch in value[1]:
            found |= _sequence(branch, states)
        return found
    if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        return _repeat(value[0], value[1], value[2], states)
    if op in ("ASSERT", "ASSERT_NOT"):
        return states  # a lookaround consumes nothing; no claim about what it sees
    # a back-reference or anything else: it may consume any text or none
    return states | _consume(states, True)


def _repeat(least: int, most: int, body: Any, states: set[_State]) -> set[_State]:
    found = set(states) if least == 0 else set()
    current = set(states)
    seen: set[frozenset[_State]] = set()
    count = 0
    while current and count < most:
        current = _sequence(body, current)
        count += 1
        if count >= least:
            found |= current
            key = frozenset(current)
            if key in seen:  # the states repeat: further rounds reach nothing new
                break
            seen.add(key)
    return found


def _set_may_hold_close(items: Any) -> bool:
    negate = False
    holds = False
    for op, value in items:
        name = _name(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            holds = holds or value == _CLOSE
        elif name == "RANGE":
            holds = holds or value[0] <= _CLOSE <= value[1]
        elif name == "CATEGORY":
            holds = holds or _name(value).startswith("CATEGORY_NOT")  # \D, \W, \S hold `}`; \d, \w, \s do not
        else:
            holds = True
    return holds != negate


def _split_top_level(pattern: str) -> list[str]:
    """`pattern` cut at its top-level `|` (outside groups, classes and escapes)."""
    pieces, depth, start, index, in_class = [], 0, 0, 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern[index + 1:index + 2] == "]":
                index += 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            pieces.append(pattern[start:index])
            start = index + 1
        index += 1
    pieces.append(pattern[start:])
    return pieces
