"""Waiting that Esc can end: a stream stopped mid-wait (and closed), a background start given up, and an item
that arrives before the abort still delivered."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.session.abortable import unless_aborted, until_aborted


class Stream:
    """A model stream that sends `first`, then hangs (a slow server) until closed."""

    def __init__(self, first: list[str]) -> None:
        self.first = first
        self.closed = False

    async def items(self) -> AsyncIterator[str]:
        try:
            for item in self.first:
                yield item
            await asyncio.Event().wait()
            yield "never"
        finally:
            self.closed = True


async def test_an_abort_ends_a_hung_stream_and_closes_it() -> None:
    abort, stream = AbortSignal(), Stream(["a", "b"])
    got: list[str] = []

    async def consume() -> None:
        async for item in until_aborted(stream.items(), abort):
            got.append(item)

    task = asyncio.ensure_future(consume())
    while len(got) < 2:
        await asyncio.sleep(0.01)
    abort.abort("esc")
    await asyncio.wait_for(task, 5)
    assert got == ["a", "b"] and stream.closed


async def test_a_stream_that_ends_is_read_whole() -> None:
    async def three() -> AsyncIterator[int]:
        for n in range(3):
            yield n

    assert [n async for n in until_aborted(three(), AbortSignal())] == [0, 1, 2]


async def test_a_background_start_is_given_up_on_abort_and_awaited_otherwise() -> None:
    abort = AbortSignal()
    hung = asyncio.get_running_loop().create_future()
    waiting = asyncio.ensure_future(unless_aborted(hung, abort))
    await asyncio.sleep(0.01)
    assert not waiting.done()
    abort.abort("esc")
    await asyncio.wait_for(waiting, 5)
    done: list[int] = []

    async def start() -> None:
        done.append(1)

    await unless_aborted(start(), AbortSignal())
    assert done == [1]
