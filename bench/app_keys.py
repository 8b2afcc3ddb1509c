"""Measuring the app from inside: key-press latency while it works, and the process's memory."""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

from textual import events
from textual.pilot import Pilot

from gemini_tui.app.screens.main_screen import MainScreen


def main_screen(pilot: Pilot[Any]) -> MainScreen:
    screen = next(s for s in pilot.app.screen_stack if isinstance(s, MainScreen))
    return screen


async def key_latency(pilot: Pilot[Any], character: str = "x") -> float:
    """Seconds from a key event reaching the app to the prompt holding the character and the screen repainted."""
    app = pilot.app
    prompt = main_screen(pilot).prompt.input
    before = prompt.text
    loop = asyncio.get_running_loop()
    started = time.perf_counter()
    app.post_message(events.Key(character, character))
    while prompt.text == before:
        await asyncio.sleep(0.0005)
    painted = loop.create_future()
    app.call_after_refresh(lambda: painted.done() or painted.set_result(None))
    await painted
    return time.perf_counter() - started


def pymalloc_mb() -> tuple[float, float, float]:
    """Python's small-object allocator now: (MB of arenas held, MB in live blocks, MB free inside partly used pools).
    An arena goes back to the system only when all of it is free, so the third figure is memory freed but still
    resident (fragmentation), which `gc` and `tracemalloc` do not see."""
    import re
    import sys
    import tempfile

    with tempfile.TemporaryFile() as out:  # the stats go to C's stderr: caught through its descriptor
        saved = os.dup(2)
        try:
            os.dup2(out.fileno(), 2)
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        out.seek(0)
        text = out.read().decode("ascii", "replace")

    def figure(name: str) -> float:
        found = re.search(rf"{name}\s*=\s*([\d,]+)", text)
        return int(found.group(1).replace(",", "")) if found else 0

    arena = re.search(r"([\d,]+) bytes/arena", text)
    arena_bytes = int(arena.group(1).replace(",", "")) if arena else 1 << 20
    return (figure("# arenas allocated current") * arena_bytes / 2**20, figure("# bytes in allocated blocks") / 2**20,
            figure("# bytes in available blocks") / 2**20)


def rss_mb() -> float:
    """Resident memory now (VmRSS), in MB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0
