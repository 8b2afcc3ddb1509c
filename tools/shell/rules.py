"""Shell command chains and the allow/deny rules (`run_shell_command(git status)`) checked against each part."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass

SHELL_TOOL_NAMES = frozenset({"run_shell_command", "ShellTool", "Shell"})
_RULE = re.compile(r"^\s*([\w.\-]+)\s*\((.*)\)\s*$", re.S)
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def split_commands(command: str) -> list[str]:
    """The simple commands of a chain, split on `&&`, `||`, `;`, `|`, `|&`, `&` and newlines outside quotes.

    Redirections such as `2>&1`, `&>file` and `>&2` are not separators."""
    parts: list[str] = []
    current: list[str] = []
    quote: str | None = None
    i, n = 0, len(command)
    while i < n:
        ch = command[i]
        if quote == "'":
            current.append(ch)
            if ch == "'":
                quote = None
            i += 1
            continue
        if ch == "\\" and i + 1 < n:
            current.append(command[i : i + 2])
            i += 2
            continue
        if quote == '"':
            current.append(ch)
            if ch == '"':
                quote = None
            i += 1
            continue
        if ch in "'\"":
            quote = ch
            current.append(ch)
            i += 1
            continue
        two = command[i : i + 2]
        if two in ("&&", "||", "|&"):
            parts.append("".join(current))
            current = []
            i += 2
            continue
        if ch == "&":
            prev = command[i - 1] if i > 0 else ""
            nxt = command[i + 1] if i + 1 < n else ""
            if prev in "<>" or nxt == ">":  # 2>&1, >&2, &>file
                current.append(ch)
                i += 1
                continue
        if ch in ";|&\n":
            parts.append("".join(current))
            current = []
            i += 1
            continue
        current.append(ch)
        i += 1
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command, comments=False)
    except ValueError:  # an unbalanced quote: fall back to whitespace, never crash on odd input
        return command.split()


def command_words(command: str) -> list[str]:
    """The words of one simple command, without leading `VAR=value` assignments and grouping characters."""
    words = _words(command.strip().lstrip("({").rstrip(")}").strip())
    while words and _ASSIGNMENT.match(words[0]):
        words.pop(0)
    return words


def root_command(command: str) -> str | None:
    """`/usr/bin/git status` -> `git`; None for an empty command."""
    words = command_words(command)
    return os.path.basename(words[0]) if words else None


def root_commands(command: str) -> tuple[str, ...]:
    """The distinct root commands of a whole chain, in order."""
    roots: list[str] = []
    for part in split_commands(command):
        root = root_command(part)
        if root and root not in roots:
            roots.append(root)
    return tuple(roots)


def has_command_substitution(command: str) -> bool:
    """`$(...)`, backticks, `<(...)` or `>(...)` outside single quotes: hidden commands no rule can see."""
    return bool(substitutions(command))


def _opens_substitution(ch: str, nxt: str, quote: str | None) -> bool:
    """Backticks and `$(` run inside double quotes too; `<(` and `>(` only outside quotes."""
    return ch == "`" or (ch == "$" and nxt == "(") or (ch in "<>" and nxt == "(" and quote is None)


def substitutions(command: str) -> list[str]:
    """The bodies of the outermost `$(...)`, backticks, `<(...)` and `>(...)` outside single quotes (backticks and
    `$(` run inside double quotes too). An unclosed one runs to the end of the command."""
    bodies: list[str] = []
    quote: str | None = None
    i, n = 0, len(command)
    while i < n:
        ch = command[i]
        if quote == "'":
            if ch == "'":
                quote = None
        elif ch == "\\":
            i += 2
            continue
        elif ch == "'" and quote is None:
            quote = "'"
        elif ch == '"':
            quote = None if quote == '"' else '"'
        elif _opens_substitution(ch, command[i + 1 : i + 2], quote):
            end = _closing(command, i)
            bodies.append(command[i + (1 if ch == "`" else 2) : end])
            i = end + 1
            continue
        i += 1
    return bodies


def _closing(command: str, start: int) -> int:
    """The index of what closes the substitution opened at `start` (len(command) when nothing does)."""
    if command[start] == "`":
        j = start + 1
        while j < len(command) and command[j] != "`":
            j += 2 if command[j] == "\\" else 1
        return min(j, len(command))
    depth, quote, j = 1, None, start + 2
    while j < len(command):
        ch = command[j]
        if quote is not None:
            if ch == quote:
                quote = None
        elif ch == "\\":
            j += 2
            continue
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return len(command)


# Commands that run the command named in their arguments, and shells that run the script given with -c.
_WRAPPERS = frozenset({"sudo", "doas", "env", "command", "builtin", "exec", "nohup", "time", "nice", "ionice",
                       "xargs", "stdbuf", "timeout", "watch", "chronic", "unbuffer"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
_MAX_NESTING = 8


def hidden_commands(command: str, depth: int = 0) -> list[list[str]]:
    """The word lists of commands run *through* `command`: in substitutions, behind a wrapper (`sudo -u x rm`,
    `xargs rm`) and in `sh -c '...'`. A wrapper's arguments are read conservatively: every suffix counts, so
    a deny rule errs on the side of refusing."""
    if depth > _MAX_NESTING:
        return []
    found: list[list[str]] = []
    for part in split_commands(command):
        words = command_words(part)
        if not words:
            continue
        root = os.path.basename(words[0])
        if root in _WRAPPERS:
            found += [words[i:] for i in range(1, len(words))]
        if root in _SHELLS and "-c" in words[1:-1]:
            script = words[words.index("-c", 1) + 1]
            found += [command_words(p) for p in split_commands(script)] + hidden_commands(script, depth + 1)
    for body in substitutions(command):
        found += [command_words(p) for p in split_commands(body)] + hidden_commands(body, depth + 1)
    return [words for words in found if words]


def _matches_prefix(words: list[str], prefix: list[str]) -> bool:
    """Whole-word prefix match: `git status` matches `git status -s`, not `git statusx` nor `git`."""
    if not prefix or len(words) < len(prefix):
        return False
    if os.path.basename(words[0]) != os.path.basename(prefix[0]):
        return False
    return words[1 : len(prefix)] == prefix[1:]


def shell_prefixes(rules: Iterable[str]) -> tuple[list[list[str]], bool]:
    """The command prefixes of `run_shell_command(...)` rules, and whether a bare shell rule was present."""
    prefixes: list[list[str]] = []
    bare = False
    for rule in rules:
        text = rule.strip()
        if text in SHELL_TOOL_NAMES:
            bare = True
            continue
        match = _RULE.match(text)
        if match and match.group(1) in SHELL_TOOL_NAMES:
            words = _words(match.group(2))
            if words:
                prefixes.append(words)
            else:
                bare = True
    return prefixes, bare


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    reason: str = ""


class ShellRules:
    """`tools.core` (allow), `tools.exclude` (deny) and `tools.allowed` (no confirmation) for shell commands.

    Every command of a chain is checked; a deny rule wins over everything. When `tools.core` names shell
    command prefixes, only those commands may run and command substitution is refused outright (it could hide
    any command); otherwise substitution is allowed but never runs without confirmation."""

    def __init__(self, core: Iterable[str] | None = None, exclude: Iterable[str] = (),
                 allowed: Iterable[str] = ()) -> None:
        self.allow_prefixes, allow_bare = shell_prefixes(core or [])
        # a strict allow-list exists only when tools.core names shell prefixes and not the whole tool
        self.restricted = bool(self.allow_prefixes) and not allow_bare
        self.deny_prefixes, self.deny_all = shell_prefixes(exclude)
        self.auto_prefixes, self.auto_all = shell_prefixes(allowed)

    def check(self, command: str) -> Verdict:
        """Whether `command` may run at all (before asking the user)."""
        if self.deny_all:
            return Verdict(False, "Shell commands are disabled by tools.exclude.")
        parts = split_commands(command)
        if not parts:
            return Verdict(False, "Command cannot be empty.")
        if self.restricted and has_command_substitution(command):
            return Verdict(False, "Command substitution ($(), ``, <(), >()) is not allowed by tools.core.")
        for part in parts:
            words = command_words(part)
            if not words:
                continue
            if any(_matches_prefix(words, p) for p in self.deny_prefixes):
                return Verdict(False, f"Command '{part}' is blocked by tools.exclude.")
            if self.restricted and not any(_matches_prefix(words, p) for p in self.allow_prefixes):
                return Verdict(False, f"Command '{part}' is not in the allowed commands of tools.core.")
        if self.deny_prefixes:
            for words in hidden_commands(command):
                if any(_matches_prefix(words, p) for p in self.deny_prefixes):
                    return Verdict(False, f"Command '{shlex.join(words)}', run by '{command.strip()}', is blocked "
                                          "by tools.exclude.")
        return Verdict(True)

    def needs_confirmation(self, command: str, session_roots: Iterable[str] = ()) -> bool:
        """False only when every command of the chain is allowed by `tools.allowed` or a root allowed for the
        session, and nothing is hidden in a substitution."""
        if not self.check(command).allowed:
            return True
        if has_command_substitution(command):
            return True
        roots = set(session_roots)
        for part in split_commands(command):
            words = command_words(part)
            if not words:
                continue
            if self.auto_all or os.path.basename(words[0]) in roots:
                continue
            if any(_matches_prefix(words, p) for p in self.auto_prefixes):
                continue
            return True
        return False
