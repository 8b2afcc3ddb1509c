"""Measuring the app from inside: key-press latency while it works, and the process's memory."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from textual import events
from textual.pilot import Pilot
from textual.screen import Screen

from gemini_tui.app.screens.main_screen import MainScreen


def main_screen(pilot: Pilot[Any]) -> MainScreen:
    screen = next(s for s in pilot.app.screen_stack if isinstance(s, MainScreen))
    return screen


async def key_latency(pilot: Pilot[Any], character: str = "x") -> float:
    """Seconds from a key event reaching the app to the prompt holding the character and the screen repainted."""
    started, ended = await _press(pilot, character)
    return ended - started


async def _press(pilot: Pilot[Any], character: str) -> tuple[float, float]:
    """Sends the key; (when, when the first frame after this coroutine saw the character in the prompt was out)."""
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
    return started, time.perf_counter()


@contextmanager
def prompt_frames() -> Iterator[list[tuple[float, str, float]]]:
    """Every frame that paints the prompt of the main screen in front anew: (when it was out, the prompt's text
    it drew, the main thread's CPU time then). Such a frame has the prompt among the widgets it redraws (the
    prompt asked for it after its text changed) and covers its region; what it draws is the prompt as it is then."""
    frames: list[tuple[float, str, float]] = []
    original = Screen._compositor_refresh

    def recorded(self: Screen[Any]) -> None:
        paints_prompt = False
        if isinstance(self, MainScreen) and self.is_current and self.prompt.input in self._dirty_widgets:
            region = self.prompt.input.region
            paints_prompt = any(region.overlaps(dirty) for dirty in self._compositor._dirty_regions)
        text = self.prompt.input.text if paints_prompt else ""  # type: ignore[attr-defined]
        original(self)
        if paints_prompt:
            frames.append((time.perf_counter(), text, time.thread_time()))

    Screen._compositor_refresh = recorded  # type: ignore[method-assign]
    try:
        yield frames
    finally:
        Screen._compositor_refresh = original  # type: ignore[method-assign]


async def key_to_frame(pilot: Pilot[Any], frames: list[tuple[float, str, float]],
                       character: str = "x") -> tuple[float, float, float]:
    """For one key (as `key_latency`, inside `prompt_frames()`): seconds from the key event reaching the app to the
    frame that painted the prompt with it; the main thread's CPU seconds meanwhile (far below the first when the
    process waited for a core); seconds to the first frame after this coroutine saw the character (what
    `key_latency` measures, later than the first when the key's frame was out before this coroutine ran again)."""
    before = len(frames)
    cpu = time.thread_time()
    started, ended = await _press(pilot, character)
    text = main_screen(pilot).prompt.input.text
    painted, cpu_then = next(((at, then) for at, drawn, then in frames[before:] if drawn == text),
                             (ended, time.thread_time()))
    return painted - started, cpu_then - cpu, ended - started


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
