"""AbortSignal: the one cancellation token a tool call receives, usable from async code and from threads."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

TIME_LIMIT = "time limit"  # the reason of a signal aborted by a tool's own clock: it keeps what it found so far


class AbortSignal:
    """Set once, never cleared. Tools poll `aborted` in loops (also from worker threads) or `await wait()`."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []
        self.reason: str | None = None

    @property
    def aborted(self) -> bool:
        return self._event.is_set()

    def abort(self, reason: str = "cancelled") -> None:
        with self._lock:
            if self._event.is_set():
                return
            self.reason = reason
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def on_abort(self, callback: Callable[[], None]) -> None:
        """Run `callback` when aborted (at once if already aborted). It may run on any thread."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return
        callback()

    async def wait(self) -> None:
        loop = asyncio.get_running_loop()
        done = loop.create_future()

        def wake() -> None:
            loop.call_soon_threadsafe(lambda: done.done() or done.set_result(None))

        self.on_abort(wake)
        await done

    def child(self) -> AbortSignal:
        """A signal that aborts with this one but can also be aborted alone (one call of a turn)."""
        child = AbortSignal()
        self.on_abort(lambda: child.abort(self.reason or "cancelled"))
        return child


async def finished_unless_aborted(work: asyncio.Future[Any], signal: AbortSignal) -> bool:
    """Waits for `work` or `signal`, whichever comes first. True when `work` finished (its result or exception
    is the caller's to read); False when the signal came first, and then `work` is cancelled and awaited.
    If the caller itself is cancelled, `work` is cancelled with it."""
    aborted = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({work, aborted}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        aborted.cancel()
        finished = work.done()
        if not finished:
            work.cancel()  # a cancelled gather() ends with a CancelledError *exception*, not as cancelled()
            await asyncio.gather(work, return_exceptions=True)
    return finished
