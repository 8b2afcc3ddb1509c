"""approvals: what a whole shell line can do, judged command by command from the capability table, and what a
rule or grant cannot cover in it (writes, other code, reads outside the roots, a program the table does not
know, project code the model changed without review)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemini_tui.core.shell.grammar import Command, ShellAnalysis
    from gemini_tui.core.shell.judge import Effects

REDIRECTION_SETTING = "tools.shell.allowRedirection"
HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "-"})


@dataclass
class LineEffects:
    """Every command of a line with its effects, and the line's redirection targets (expanded now)."""

    commands: list[tuple[Command, Effects]] = field(default_factory=list)
    redirects: list[tuple[str | None, str]] = field(default_factory=list)  # (path or None, how)
    reads: list[tuple[str | None, str]] = field(default_factory=list)  # input redirections: (path or None, how)

    def writes(self) -> list[tuple[str | None, str]]:
        found = list(self.redirects)
        for _, effects in self.commands:
            found.extend(effects.writes)
            found.extend(effects.purpose_writes)
        return found

    def hidden_code(self) -> list[tuple[Command, str]]:
        """Code a deny list cannot see: (command, why). Visible command lines are judged by themselves."""
        found = []
        for command, effects in self.commands:
            found.extend((command, why) for why in effects.code if not _visible(why, effects))
            if effects.project:
                found.append((command, effects.project))
        return found

    def visible_lines(self) -> list[str]:
        return [line for _, effects in self.commands for line in effects.visible]


def _visible(why: str, effects: Effects) -> bool:
    return any(f"runs `{line}`" in why for line in effects.visible)


def line_effects(shell: ShellAnalysis, cwd: str, root: str, env: Mapping[str, str] | None = None) -> LineEffects:
    from gemini_tui.core.shell.judge import Context, judge
    from gemini_tui.core.shell.words import expand

    env = os.environ if env is None else env
    context = Context(root, cwd, env, shell.assigned, shell.changes_directory)
    found = LineEffects()
    forms = list(shell.write_forms) + [None] * (len(shell.writes) - len(shell.write_forms))
    for literal, form in zip(shell.writes, forms, strict=False):
        values: list[str] | None
        if form is not None:
            values = expand(form, env, cwd, shell.assigned, shell.changes_directory)
        else:
            values = [literal] if literal is not None else None
        if values is None:
            found.redirects.append((None, "a redirection to a path computed at run time"))
            continue
        for value in values:
            if value not in HARMLESS_TARGETS and not value.startswith("/dev/fd/"):
                found.redirects.append((value, "a redirection"))
    read_forms = list(shell.read_forms) + [None] * (len(shell.reads) - len(shell.read_forms))
    for literal, form in zip(shell.reads, read_forms, strict=False):
        values = expand(form, env, cwd, shell.assigned, shell.changes_directory) if form is not None else (
            [literal] if literal is not None else None)
        if values is None:
            found.reads.append((None, "an input redirection from a path computed at run time"))
            continue
        found.reads.extend((value, "an input redirection") for value in values
                           if value not in HARMLESS_TARGETS and value != "/dev/stdin"
                           and not value.startswith("/dev/fd/"))
    for command in shell.commands:
        found.commands.append((command, judge(command, context)))
    _through_made_links(found, cwd)
    return found


def _through_made_links(found: LineEffects, cwd: str) -> None:
    """A path at or below a name another command of the line may leave as a symbolic link (`ln -s .git/hooks h;
    cp x h/pre-commit`) lands wherever that link points once it runs: it is unknown now. Every other command
    counts, not only the later ones: a loop runs the earlier ones again."""
    made = [(index, place) for index, (_, effects) in enumerate(found.commands) for path in effects.links
            if not _real_folder(place := _lexical(path, cwd))]
    if not made:
        return

    def through(path: str | None, others: list[str]) -> str | None:
        if path is None:
            return None
        place = _lexical(path, cwd)
        for name in others:
            if place == name or place.startswith(name.rstrip(os.sep) + os.sep):
                return name
        return None

    def redo(pairs: list[tuple[str | None, str]], others: list[str]) -> list[tuple[str | None, str]]:
        out: list[tuple[str | None, str]] = []
        for path, how in pairs:
            name = through(path, others)
            out.append((path, how) if name is None else (None, f"{how}: {path} is at or below "
                                                              f"{os.path.relpath(name, cwd)}, which the line itself "
                                                              "may make a symbolic link"))
        return out

    everything = [place for _, place in made]
    for index, (_, effects) in enumerate(found.commands):
        others = [place for at, place in made if at != index]
        effects.writes = redo(effects.writes, others)
        effects.purpose_writes = redo(effects.purpose_writes, others)
        effects.reads = [None if through(path, others) else path for path in effects.reads]
    found.redirects = redo(found.redirects, everything)
    found.reads = redo(found.reads, everything)


def _lexical(path: str, cwd: str) -> str:
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))


def _real_folder(place: str) -> bool:
    """A folder that exists now (not a link) stays one: a copy or checkout writes inside it, never replaces it."""
    return os.path.isdir(place) and not os.path.islink(place)


def reads_problem(reads: list[tuple[str | None, str]], roots: list[str], cwd: str,
                  changes_directory: bool) -> tuple[str, str] | None:
    """An input redirection reads its file as `cat` would: outside the roots, a rule does not cover it."""
    for path, how in reads:
        if path is None:
            return ("reads outside the workspace", f"It reads a file whose name is only known when it runs ({how}).")
        if changes_directory and not os.path.isabs(path):
            return ("reads outside the workspace", f"It reads {path} after a cd ({how}), somewhere the rules "
                                                   "cannot see.")
        if not inside(resolve(path, cwd), roots):
            return ("reads outside the workspace", f"It reads {path}, outside the workspace ({how}); rules cover "
                                                   "reads inside it only.")
    return None


def resolve(path: str, cwd: str) -> str:
    joined = path if os.path.isabs(path) else os.path.join(cwd, path)
    try:
        return os.path.realpath(joined)
    except (OSError, ValueError):
        return os.path.normpath(joined)


def inside(path: str, roots: Iterable[str]) -> bool:
    for root in roots:
        real = os.path.realpath(root)
        if path == real or path.startswith(real.rstrip(os.sep) + os.sep):
            return True
    return False


def coverage_problem(command: Command, effects: Effects, roots: list[str], cwd: str, allow_writes: bool,
                     unreviewed: list[str], sandboxed: bool, changes_directory: bool) -> tuple[str, str] | None:
    """Why a rule naming `command` does not cover it: (kind, sentence); None when it does."""
    name = command.name or "?"
    if effects.unknown:
        return ("unknown program", f"{effects.unknown}, so no rule or grant covers it: it asks every time.")
    if effects.code:
        return ("runs other code", f"{_first(effects.code)}, which no rule for `{name}` covers.")
    if effects.project and unreviewed and not sandboxed:
        files = ", ".join(unreviewed[:8]) + (f" and {len(unreviewed) - 8} more" if len(unreviewed) > 8 else "")
        return ("runs code the model changed", (
            f"{effects.project}, and the model changed these files this session without your review: {files}. "
            "Look at them before it runs."))
    problem = writes_problem(effects.writes, roots, cwd, allow_writes, changes_directory)
    if problem:
        return problem
    problem = writes_problem(effects.purpose_writes, roots, cwd, True, changes_directory)
    if problem:
        return problem
    for path in effects.reads:
        if path is None:
            return ("reads outside the workspace", f"`{name}` reads a path computed at run time, which could be "
                                                   "outside the workspace.")
        if path in HARMLESS_TARGETS or path.startswith("/dev/fd/"):
            continue
        if changes_directory and not os.path.isabs(path):
            return ("reads outside the workspace", f"`{name}` reads {path} after a cd, somewhere the rules cannot "
                                                   "see; rules cover reads inside the workspace only.")
        if not inside(resolve(path, cwd), roots):
            return ("reads outside the workspace", f"`{name}` reads {path}, outside the workspace; rules cover "
                                                   "reads inside it only.")
    return None


def writes_problem(writes: list[tuple[str | None, str]], roots: list[str], cwd: str, allow_writes: bool,
                   changes_directory: bool) -> tuple[str, str] | None:
    for path, how in writes:
        if path is None:
            return ("writes a file", f"It writes a file whose name is only known when it runs ({how}).")
        real = resolve(path, cwd)
        if changes_directory and not os.path.isabs(path):
            return ("writes a file", f"It writes {path} after a cd ({how}), somewhere the rules cannot see.")
        if not inside(real, roots):
            return ("writes outside the workspace", f"It writes {path}, outside the workspace ({how}).")
        if not allow_writes:
            return ("writes a file", f"It writes {path} ({how}); rules and grants cover reading only. "
                                     f"{REDIRECTION_SETTING}: true lets covered commands write inside the "
                                     "workspace.")
    return None


def _first(reasons: list[str]) -> str:
    text = reasons[0]
    return text[:1].upper() + text[1:]
