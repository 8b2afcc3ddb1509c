"""A child's process group: which of its processes are alive, and ending all of them (SIGTERM, then SIGKILL)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of group `pgid`, read from /proc, or from `ps` where there is no /proc."""
    try:
        if pgid > 0:  # 0 would ask about our own group
            os.killpg(pgid, 0)
    except ProcessLookupError:
        # the usual answer after a command: nobody left, not even a zombie. Asked first because reading every
        # process's stat takes milliseconds, more with every process on the machine, and is done twice a command
        return []
    except PermissionError:
        pass  # a member we may not signal: it is there, the listing below says which
    if os.path.isdir("/proc"):
        return _members_in_proc(pgid)
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


def _members_in_proc(pgid: int) -> list[int]:
    # plain descriptors and bytes: a third of the time pathlib and text decoding took, for each process running
    members = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            descriptor = os.open(f"/proc/{name}/stat", os.O_RDONLY)
        except OSError:
            continue
        try:
            stat = os.read(descriptor, 1024)  # the fields read here come within the first ~100 bytes
        except OSError:
            continue
        finally:
            os.close(descriptor)
        # fields after the parenthesised command name: state ppid pgrp ...
        fields = stat[stat.rfind(b")") + 2:].split(maxsplit=3)
        if len(fields) >= 3 and fields[0] not in (b"Z", b"X") and int(fields[2]) == pgid:
            members.append(int(name))
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
