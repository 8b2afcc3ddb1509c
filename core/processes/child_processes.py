"""Every process group a tool starts (commands, searches, discovery and call commands), so that none outlives
gemini-tui: each is ended with its call, and whatever is still running when gemini-tui exits is ended then.

Each child leads its own session (start_new_session), so its whole group goes with one signal; the registry
only holds the group ids of children still running."""

from __future__ import annotations

import atexit
import os
import signal
import threading

_groups: set[int] = set()
_lock = threading.Lock()


def track(pgid: int) -> None:
    with _lock:
        _groups.add(pgid)


def untrack(pgid: int) -> None:
    with _lock:
        _groups.discard(pgid)


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def end_all() -> None:
    """SIGKILL every group still running: gemini-tui is leaving (also on os._exit paths, which skip atexit)."""
    with _lock:
        groups = list(_groups)
        _groups.clear()
    for pgid in groups:
        kill_group(pgid)


atexit.register(end_all)
