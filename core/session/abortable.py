"""Waiting that the user's Esc can end: a model stream, or a background start, given up when the abort fires."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable
from typing import Any, TypeVar

from gemini_tui.core.ground.abort import AbortSignal, finished_unless_aborted
from gemini_tui.core.ground.foreground import FOREGROUND

log = logging.getLogger(__name__)
T = TypeVar("T")


async def unless_aborted(work: Awaitable[object], abort: AbortSignal) -> None:
    """Awaits `work`, or stops waiting for it when `abort` fires."""
    task = asyncio.ensure_future(work)
    if await finished_unless_aborted(task, abort) and not task.cancelled() and (error := task.exception()):
        log.warning("background start failed: %s", error)  # MCP reports per server; this is a bug guard


async def until_aborted(stream: AsyncIterator[T], abort: AbortSignal) -> AsyncIterator[T]:
    """Items of `stream` until it ends or `abort` fires, even while it waits on a slow server."""
    aborted = asyncio.ensure_future(abort.wait())
    step: asyncio.Future[T] | None = None
    try:
        while True:
            step = asyncio.ensure_future(anext(stream))
            # If the consumer goes away mid-wait (app closed mid-turn), the step may end later on its own:
            # retrieve its outcome so asyncio does not report an exception that "was never retrieved".
            step.add_done_callback(_retrieve_outcome)
            await asyncio.wait({step, aborted}, return_when=asyncio.FIRST_COMPLETED)
            if not step.done():
                step.cancel()
                await asyncio.gather(step, return_exceptions=True)
                return
            try:
                item = step.result()
            except StopAsyncIteration:
                return
            await FOREGROUND.step()  # a key the user typed is drawn before this item is
            yield item
    finally:
        aborted.cancel()
        if step is not None and not step.done():
            # the consumer went away mid-wait (cancelled): stop the step first, or the stream is still running
            # when aclose() comes, fails with "asynchronous generator is already running", and is left for
            # the loop's shutdown to report on the user's terminal
            step.cancel()
            await asyncio.gather(step, return_exceptions=True)
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            with contextlib.suppress(Exception):
                await aclose()


def _retrieve_outcome(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
