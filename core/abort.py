"""AbortSignal: the one cancellation token a tool call receives, usable from async code and from threads."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable


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
