"""Whole process trees (processes room): a process's descendants read from /proc, the Linux child-subreaper and
parent-death settings that keep orphans under their ancestor, and ending a tree with every process group in it.

`gemini-tui serve` runs one app per page: each app is a subreaper, so whatever its tools leave behind (a command's
`setsid` grandchild) stays in its tree while it runs, and comes to the server (a subreaper too) when it ends."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
from pathlib import Path

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PROC = Path("/proc")


def _prctl(option: int, value: int) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):  # not Linux: nothing to set
        return False


def become_subreaper() -> bool:
    """Orphaned descendants are re-parented to this process instead of to init (Linux; False elsewhere)."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def end_with_parent(sig: int = signal.SIGTERM) -> bool:
    """This process gets `sig` when its parent dies (the server killed outright leaves no app behind)."""
    return _prctl(PR_SET_PDEATHSIG, sig)


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, process group) of `pid`, or None once it is gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # the command name, in parentheses, may hold spaces
    return fields[0], int(fields[1]), int(fields[2])


def _all() -> dict[int, tuple[str, int, int]]:
    found: dict[int, tuple[str, int, int]] = {}
    for entry in PROC.iterdir() if PROC.is_dir() else ():
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) is not None:
            found[int(entry.name)] = stat
    return found


def children(pid: int) -> list[int]:
    return [child for child, (_state, parent, _group) in _all().items() if parent == pid]


def descendants(pid: int) -> list[int]:
    """Every live process below `pid`, parents before their children."""
    table = _all()
    below: dict[int, list[int]] = {}
    for child, (_state, parent, _group) in table.items():
        below.setdefault(parent, []).append(child)
    found: list[int] = []
    frontier = list(below.get(pid, []))
    while frontier:
        current = frontier.pop(0)
        found.append(current)
        frontier.extend(below.get(current, []))
    return found


def alive(pid: int) -> bool:
    """Running (a zombie, which has ended and only waits to be reaped, is not)."""
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def end_tree(pid: int, sig: int = signal.SIGKILL) -> list[int]:
    """Sends `sig` to `pid`, to everything below it and to every process group among them (a group whose leader
    already left still holds its members); never to this process's own group. Returns the pids it found."""
    tree = [pid, *descendants(pid)]
    own_group = os.getpgrp()
    groups = {stat[2] for member in tree if (stat := _stat(member)) is not None} - {own_group}
    for group in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, sig)
    for member in tree:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(member, sig)
    return tree


def reap(pid: int) -> bool:
    """Collects an ended child of this process (an orphan given to this subreaper); True once it is collected."""
    try:
        done, _status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:  # not our child, or already collected
        return True
    return done == pid
