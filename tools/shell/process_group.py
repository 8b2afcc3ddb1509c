"""A child's process group: which of its processes are alive, and ending all of them (SIGTERM, then SIGKILL)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from pathlib import Path


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of group `pgid`, read from /proc, or from `ps` where there is no /proc."""
    proc = Path("/proc")
    if proc.is_dir():
        members = []
        for entry in proc.iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            # fields after the parenthesised command name: state ppid pgrp ...
            fields = stat[stat.rfind(")") + 2 :].split()
            if len(fields) >= 3 and fields[0] not in ("Z", "X") and int(fields[2]) == pgid:
                members.append(int(entry.name))
        return sorted(members)
    try:
        out = subprocess.run(["ps", "-A", "-o", "pid=,pgid=,stat="], capture_output=True, text=True,
                             timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    members = []
    for line in out.splitlines():
        cols = line.split()
        if len(cols) >= 3 and cols[1] == str(pgid) and not cols[2].startswith("Z"):
            members.append(int(cols[0]))
    return sorted(members)


def _signal_group(pgid: int, sig: int) -> bool:
    try:
        os.killpg(pgid, sig)
        return True
    except (ProcessLookupError, PermissionError):
        return False


async def end_group(pgid: int, grace_s: float = 2.0) -> None:
    """SIGTERM the whole group, wait up to `grace_s` for it to go, then SIGKILL whatever is left."""
    if not _signal_group(pgid, signal.SIGTERM):
        return
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace_s
    while loop.time() < deadline:
        if not group_members(pgid):
            return
        await asyncio.sleep(0.05)
    _signal_group(pgid, signal.SIGKILL)
    for _ in range(40):  # SIGKILL cannot be caught: the group is gone within moments
        if not group_members(pgid):
            return
        await asyncio.sleep(0.05)
