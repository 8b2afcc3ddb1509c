"""Measuring the app from inside: key-press latency while it works, and the process's memory."""

from __future__ import annotations

import asyncio
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


def rss_mb() -> float:
    """Resident memory now (VmRSS), in MB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0
