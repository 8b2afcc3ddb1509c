"""Session room: a prompt's wait for MCP servers still connecting, said (which servers, for how long) and
stoppable, so a hung server never holds a prompt silently."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from gemini_tui.core.ground.events import Event, WaitingForServers

log = logging.getLogger(__name__)

SAY_AFTER_S = 0.3  # a server connecting faster than this is not worth a line in the chat


class ServiceWait:
    """What `send` awaits before a prompt. `stop` ends the wait early: the prompt goes without the tools of the
    servers still connecting (they keep connecting and are offered from the next request on)."""

    def __init__(self) -> None:
        self._stop: asyncio.Event | None = None

    @property
    def waiting(self) -> bool:
        return self._stop is not None

    def stop(self) -> bool:
        """True when a wait was running (and now ends)."""
        if self._stop is None:
            return False
        self._stop.set()
        return True

    async def wait(self, ready: Awaitable[object], pending: Callable[[], list[str]],
                   publish: Callable[[Event], None], timeout_s: float) -> None:
        """Awaits `ready`; past SAY_AFTER_S, publishes which servers (`pending()`) it waits for."""
        task = asyncio.ensure_future(ready)
        self._stop = stop = asyncio.Event()
        stopped = asyncio.ensure_future(stop.wait())
        try:
            done, _ = await asyncio.wait({task, stopped}, timeout=SAY_AFTER_S, return_when=asyncio.FIRST_COMPLETED)
            if not done and (names := pending()):
                publish(WaitingForServers(tuple(names), timeout_s))
            if not done:
                await asyncio.wait({task, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self._stop = None
            if task.done() and not task.cancelled() and (error := task.exception()):
                log.warning("background start failed: %s", error)  # MCP reports per server; this is a bug guard
            for each in (stopped, task):
                if not each.done():
                    each.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await each
