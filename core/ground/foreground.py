"""The foreground: while a key the user typed is on its way to the screen, work that can wait (agents' model
streams, their tool calls, the events they send the app, the garbage collector) waits, so each hop of the key finds
the one event loop free. A front end says when a key arrives and when its frame is drawn; the hold never outlasts
the time given with the key, so work is delayed, never stopped."""

from __future__ import annotations

import asyncio
import gc
import time


class Foreground:
    """`hold(for_s)` when input arrives, `let_go()` once it is shown; `await step()` in work that can wait."""

    def __init__(self) -> None:
        self._until = 0.0  # monotonic time the hold ends by itself
        self._waiting: set[asyncio.Future[None]] = set()
        self._ends: asyncio.TimerHandle | None = None
        self._paused_gc = False  # the collector was on and is paused by the hold
        self.waits = 0  # steps that waited (a test reads it)

    @property
    def held(self) -> bool:
        return time.monotonic() < self._until

    def hold(self, for_s: float) -> None:
        """From now until `let_go()`, or `for_s` seconds at most. A collection of garbage (up to 10-15 ms with
        many agents' objects about) comes after the hold, not in the middle of drawing the input."""
        self._until = time.monotonic() + for_s
        if self._ends is not None:
            self._ends.cancel()
        self._ends = asyncio.get_running_loop().call_later(for_s, self.let_go)
        if gc.isenabled():
            gc.disable()
            self._paused_gc = True

    def let_go(self) -> None:
        self._until = 0.0
        if self._ends is not None:
            self._ends.cancel()
            self._ends = None
        if self._paused_gc:
            self._paused_gc = False
            gc.enable()
        waiting, self._waiting = self._waiting, set()
        for future in waiting:
            if not future.done():
                future.set_result(None)

    async def step(self) -> None:
        """Returns at once, or when the input being drawn is shown (at the latest when the hold ends)."""
        if self._until <= time.monotonic():
            return
        self.waits += 1
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.add(future)
        try:
            await future
        finally:
            self._waiting.discard(future)


FOREGROUND = Foreground()  # one per process: the keys of the one window its sessions share
