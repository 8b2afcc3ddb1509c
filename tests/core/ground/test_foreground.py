"""The foreground: work that can wait (a model stream's items, a tool call's start) waits while the user's input is
held in front, goes on when it is let go, and never waits past the hold's own end. Cases are generated: holds of
several lengths let go early, late or never, with several streams and calls at work."""

from __future__ import annotations

import asyncio
import gc
import random
import time
from collections.abc import AsyncIterator, Iterator

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.foreground import FOREGROUND, Foreground
from gemini_tui.core.session.abortable import until_aborted

TICK_S = 0.005


def cases() -> list[tuple[int, float, float | None, int]]:
    """(seed, hold seconds, let go after seconds or None, streams at work)."""
    rng = random.Random(34)
    return [(seed, rng.choice([0.15, 0.3]), rng.choice([0.05, 0.1, None]), rng.randint(1, 4)) for seed in range(6)]


async def stream(n: int) -> AsyncIterator[int]:
    for item in range(n):
        await asyncio.sleep(TICK_S)
        yield item


@pytest.fixture(autouse=True)
def let_go_after() -> Iterator[None]:
    yield None
    FOREGROUND.let_go()  # a failed case leaves no hold behind for the next test of this worker


@pytest.mark.parametrize(("seed", "hold_s", "let_go_s", "streams"), cases())
async def test_streams_wait_while_input_is_held_and_go_on_when_it_is_let_go(
        seed: int, hold_s: float, let_go_s: float | None, streams: int) -> None:
    rng = random.Random(seed)
    lengths = [rng.randint(3, 8) for _ in range(streams)]
    got: list[list[float]] = [[] for _ in lengths]

    async def consume(index: int, n: int) -> None:
        async for _ in until_aborted(stream(n), AbortSignal()):
            got[index].append(time.monotonic())

    tasks = [asyncio.create_task(consume(i, n)) for i, n in enumerate(lengths)]
    await asyncio.sleep(TICK_S * 1.5)  # each stream is under way: its first item may be through already
    held_at = time.monotonic()
    FOREGROUND.hold(hold_s)
    waits = FOREGROUND.waits
    if let_go_s is not None:
        await asyncio.sleep(let_go_s)
        let_go_at = time.monotonic()
        FOREGROUND.let_go()
    await asyncio.wait_for(asyncio.gather(*tasks), 5)
    resumed = let_go_at if let_go_s is not None else held_at + hold_s
    for index, times in enumerate(got):
        assert len(times) == lengths[index]  # nothing is dropped
        during = [at for at in times if held_at + TICK_S < at < resumed - TICK_S]
        assert during == [], f"stream {index} handed on {len(during)} items while the input was held"
        after = [at for at in times if at >= resumed - TICK_S]
        assert after, f"stream {index} did not go on after the hold"
        assert after[0] - resumed < 0.1  # it goes on at once, not at some later poll
    assert FOREGROUND.waits > waits


@pytest.mark.parametrize("hold_s", [0.0, 0.02, 0.08])
async def test_a_step_returns_at_once_without_a_hold_and_never_waits_past_its_end(hold_s: float) -> None:
    foreground = Foreground()
    foreground.hold(hold_s)
    started = time.monotonic()
    await foreground.step()
    waited = time.monotonic() - started
    assert waited < hold_s + 0.05
    assert (foreground.waits == 1) == (hold_s > 0)
    if hold_s:
        assert waited >= hold_s * 0.8


def garbage(n: int) -> None:
    for _ in range(n):
        cycle: list[object] = []
        cycle.append(cycle)


@pytest.mark.parametrize(("let_go", "objects"), [(True, 5_000), (True, 20_000), (False, 5_000), (False, 20_000)])
async def test_no_garbage_collection_runs_while_input_is_held_and_it_runs_again_after(
        let_go: bool, objects: int) -> None:
    """The collector waits while input is held (a collection of many agents' objects costs 10-15 ms); it is on
    again once the input is let go, or when the hold ends by itself."""
    collections: list[int] = []

    def counted(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    foreground = Foreground()
    gc.callbacks.append(counted)
    try:
        assert gc.isenabled()
        foreground.hold(0.05)
        garbage(objects)  # many times the young generation's threshold
        assert collections == [] and not gc.isenabled()
        if let_go:
            foreground.let_go()
        else:
            await asyncio.sleep(0.08)
        assert gc.isenabled()
        garbage(objects)
        assert collections, "no collection after the hold"
    finally:
        gc.callbacks.remove(counted)
        foreground.let_go()
        gc.enable()
