"""The foreground: while a key the user typed is on its way to the screen, work that can wait (agents' model
streams, their tool calls, the events they send the app) waits at its next step, so each hop of the key finds the
one event loop free. A front end says when a key arrives and when its frame is drawn; the wait never outlasts the
time given with the key, so work is delayed, never stopped."""

from __future__ import annotations

import asyncio
import time


class Foreground:
    """`hold(for_s)` when input arrives, `let_go()` once it is shown; `await step()` in work that can wait."""

    def __init__(self) -> None:
        self._until = 0.0  # monotonic time the hold ends by itself
        self._waiting: set[asyncio.Future[None]] = set()
        self.waits = 0  # steps that waited (a test reads it)

    @property
    def held(self) -> bool:
        return time.monotonic() < self._until

    def hold(self, for_s: float) -> None:
        self._until = time.monotonic() + for_s

    def let_go(self) -> None:
        self._until = 0.0
        waiting, self._waiting = self._waiting, set()
        for future in waiting:
            if not future.done():
                future.set_result(None)

    async def step(self) -> None:
        """Returns at once, or when the input being drawn is shown (at the latest when the hold ends)."""
        left = self._until - time.monotonic()
        if left <= 0:
            return
        self.waits += 1
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._waiting.add(future)
        ends = loop.call_later(left, lambda: future.done() or future.set_result(None))
        try:
            await future
        finally:
            ends.cancel()
            self._waiting.discard(future)


FOREGROUND = Foreground()  # one per process: the keys of the one window its sessions share
