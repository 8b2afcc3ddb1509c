"""processes: a word's values as bash would expand them (tilde, variables, braces, globs), from the real
environment and file system at the moment the policy decides.

A word is kept by the parser as its parts (`Part`): literal text (quoted or not), a variable, or something
only known when it runs (a command substitution, `${x:-...}`, `$1`). `expand` answers the list of words bash
would produce, or None when that cannot be known now (then a caller that needs the path asks)."""

from __future__ import annotations

import glob
import os
import pwd
import re
from collections.abc import Mapping
from typing import NamedTuple


class Part(NamedTuple):
    kind: str  # "lit" (text), "var" (a variable's value), "dyn" (only known when it runs)
    text: str
    quoted: bool


Form = tuple[Part, ...]

_GLOB_CHARS = frozenset("*?[")
_SPECIAL = re.compile(r"[*?\[{~=]")
_SPLIT = re.compile(r"[ \t\n]+")


def expand(form: Form, env: Mapping[str, str], cwd: str, assigned: frozenset[str] = frozenset(),
           changes_directory: bool = False) -> list[str] | None:
    """The words `form` expands to, as bash would now; None when it depends on what runs first."""
    if all(part.kind == "lit" for part in form):  # the common case: plain text, nothing for bash to expand
        plain = "".join(part.text for part in form)
        if all(part.quoted for part in form) or not _SPECIAL.search(
                "".join(part.text for part in form if not part.quoted)):
            return [plain]
    chars: list[tuple[str, bool, bool]] = []  # (char, brace-able, glob-able)
    for index, part in enumerate(form):
        if part.kind == "dyn":
            return None
        if part.kind == "var":
            if part.text in assigned or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part.text):
                return None
            if part.text in ("PWD", "OLDPWD") and changes_directory:
                return None
            value = env.get(part.text, "")
            if not part.quoted and _SPLIT.search(value):
                return None  # word splitting: more than one word, which one is the path is a guess
            chars.extend((c, False, not part.quoted) for c in value)
            continue
        text = part.text
        if index == 0 and not part.quoted and text.startswith("~"):
            expanded = _tilde(text, env, cwd, changes_directory)
            if expanded is None:
                return None
            chars.extend((c, False, False) for c in expanded[0])
            text = expanded[1]
        if not part.quoted and "=~" in text:  # `--output=~/x`: bash expands it in assignment-like words
            head, _, tail = text.partition("=~")
            if tail == "" or tail.startswith("/"):
                text = f"{head}={env.get('HOME', os.path.expanduser('~'))}{tail}"
        chars.extend((c, not part.quoted, not part.quoted) for c in text)
    words = _braces(chars)
    found: list[str] = []
    for word in words:
        found.extend(_glob(word, cwd))
    return found


def _tilde(text: str, env: Mapping[str, str], cwd: str, changes_directory: bool) -> tuple[str, str] | None:
    """(the expansion of the tilde prefix, the rest of the text); None when it is not known now."""
    prefix, slash, rest = text.partition("/")
    name = prefix[1:]
    if name == "":
        value = env.get("HOME") or os.path.expanduser("~")
    elif name == "+":
        if changes_directory:
            return None
        value = cwd
    elif name == "-":
        if changes_directory:
            return None
        value = env.get("OLDPWD", "")
        if not value:
            return prefix, slash + rest
    elif re.fullmatch(r"[+-]?\d+", name):
        return None  # ~N: the directory stack
    else:
        try:
            value = pwd.getpwnam(name).pw_dir
        except (KeyError, OSError):
            return prefix, slash + rest  # no such user: the word stays as typed
    return value, slash + rest


def _braces(chars: list[tuple[str, bool, bool]]) -> list[list[tuple[str, bool, bool]]]:
    """Brace expansion: `a{b,c}` -> `ab ac`, `{1..3}` -> `1 2 3` (on unquoted braces only)."""
    depth, start = 0, -1
    for index, (char, active, _) in enumerate(chars):
        if not active:
            continue
        if char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                inner = chars[start + 1:index]
                choices = _brace_choices(inner)
                if choices is None:
                    continue
                head, tail = chars[:start], chars[index + 1:]
                out: list[list[tuple[str, bool, bool]]] = []
                for choice in choices:
                    out.extend(_braces(head + choice + tail))
                return out
    return [chars]


def _brace_choices(inner: list[tuple[str, bool, bool]]) -> list[list[tuple[str, bool, bool]]] | None:
    parts: list[list[tuple[str, bool, bool]]] = [[]]
    depth = 0
    for item in inner:
        char, active, _ = item
        if active and char == "{":
            depth += 1
        elif active and char == "}":
            depth -= 1
        if active and char == "," and depth == 0:
            parts.append([])
        else:
            parts[-1].append(item)
    if len(parts) > 1:
        return parts
    text = "".join(c for c, _, _ in inner)
    sequence = re.fullmatch(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?|([A-Za-z])\.\.([A-Za-z])", text)
    if sequence is None or not all(active for _, active, _ in inner):
        return None
    if sequence.group(4):
        low, high = ord(sequence.group(4)), ord(sequence.group(5))
        step = 1 if high >= low else -1
        values = [chr(v) for v in range(low, high + step, step)]
    else:
        low, high = int(sequence.group(1)), int(sequence.group(2))
        step = abs(int(sequence.group(3) or 1)) or 1
        step = step if high >= low else -step
        if abs(high - low) // abs(step) > 10000:
            return None
        values = [str(v) for v in range(low, high + (1 if step > 0 else -1), step)]
    return [[(c, False, False) for c in value] for value in values]


def _glob(word: list[tuple[str, bool, bool]], cwd: str) -> list[str]:
    text = "".join(c for c, _, _ in word)
    if not any(c in _GLOB_CHARS and globbing for c, _, globbing in word):
        return [text]
    pattern = "".join(c if globbing and c in "*?[]!^" else glob.escape(c) for c, _, globbing in word)
    base = cwd if not os.path.isabs(text) else ""
    matches = sorted(glob.glob(os.path.join(base, pattern) if base else pattern))
    if not matches:
        # no match: bash keeps the word as typed; a file it could name once created is a candidate too
        head, tail = os.path.split(pattern)
        folders = sorted(glob.glob(os.path.join(base, head) if base else head)) if head else []
        return [text, *(os.path.join(folder, _unescape_glob(tail)) for folder in folders)]
    return [m[len(base) + 1:] if base and m.startswith(base + os.sep) else m for m in matches]


def _unescape_glob(text: str) -> str:
    return re.sub(r"\[(.)\]", r"\1", text)
