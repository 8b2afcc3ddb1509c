"""Subagents of one model turn in parallel: read-only agents overlap (their requests interleave at the fake server
and the turn takes less than the sum of their times), writing agents take turns, `agents.maxParallel` bounds how
many run at once, and cancelling the turn ends every run with a response for each call."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

import pytest

from gemini_tui.core.ground.events import CallFinished, Event, TurnEndReason
from tests.core.agents.world import Router, agent_file, response_texts, session_on
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

DELAY = 1.0  # each agent's model takes this long to answer


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def agents(home: Path, count: int, tools: list[str], router: Router) -> list[str]:
    names = [f"agent-{n}" for n in range(count)]
    for name in names:
        marker = f"{name.upper()}-BODY"
        agent_file(home / ".gemini" / "agents", name, f"You are {marker}.", tools=tools)
        router.script(marker, reply(call("complete_task", result=f"{name} done"), delay_s=DELAY))
    return names


def spans(router: Router, names: list[str]) -> list[tuple[float, float]]:
    """When each agent's first request arrived, and when its answer was complete (arrival + the delay)."""
    arrived = [next(at for who, at, _ in router.seen if who == f"{name.upper()}-BODY") for name in names]
    return [(at, at + DELAY) for at in arrived]


@pytest.mark.parametrize("count", [2, 3, 4])
async def test_read_only_agents_of_one_turn_overlap(root: Path, home: Path, count: int) -> None:
    router = Router()
    names = agents(home, count, ["read_file", "glob"], router)
    router.script("parent", reply(*[call("invoke_agent", agent_name=n, prompt="look") for n in names]),
                  reply(text("All looked.")))
    finished: list[CallFinished] = []

    def keep(event: Event) -> None:
        if isinstance(event, CallFinished) and event.call.name == "invoke_agent":
            finished.append(event)

    with FakeGeminiServer() as server:
        server.responder = router
        session = session_on(server, root, home)
        session.bus.tap(keep)
        assert await session.send("look around") is TurnEndReason.completed
    runs = spans(router, names)
    # every run started before the first one ended: they were all under way at once
    assert max(start for start, _ in runs) < min(end for _, end in runs)
    # and the calls' wall time is below the sum of their own times
    assert len(finished) == count and all(f.call.ended_at is not None and f.call.started_at for f in finished)
    took = max(f.call.ended_at or 0.0 for f in finished) - min(f.call.started_at for f in finished)
    assert took < sum(f.duration_ms for f in finished) / 1000
    answered = response_texts(router.requests_of("parent")[1])
    assert [f"{n} done" in a for a, n in zip(answered, names, strict=True)] == [True] * count  # in call order


async def test_writing_agents_take_turns(root: Path, home: Path) -> None:
    router = Router()
    names = agents(home, 2, ["read_file", "write_file"], router)
    router.script("parent", reply(*[call("invoke_agent", agent_name=n, prompt="write") for n in names]),
                  reply(text("Both wrote.")))
    with FakeGeminiServer() as server:
        server.responder = router
        session = session_on(server, root, home)
        await session.send("write things")
    (_, first_end), (second_start, _) = spans(router, names)
    assert second_start >= first_end - 0.05  # the second began once the first had its answer


@pytest.mark.parametrize("limit", [1, 2])
async def test_max_parallel_bounds_the_runs_at_once(root: Path, home: Path, limit: int) -> None:
    router = Router()
    names = agents(home, 3, ["read_file"], router)
    router.script("parent", reply(*[call("invoke_agent", agent_name=n, prompt="look") for n in names]),
                  reply(text("Done.")))
    with FakeGeminiServer() as server:
        server.responder = router
        session = session_on(server, root, home, settings={"agents": {"maxParallel": limit}})
        await session.send("look")
    runs = spans(router, names)
    for start, _ in runs:  # at no start were more than `limit` runs under way
        assert sum(1 for s, e in runs if s <= start < e) <= limit


async def test_cancelling_the_turn_ends_every_run(root: Path, home: Path) -> None:
    rng = random.Random(34)
    router = Router()
    names = [f"slow-{n}" for n in range(3)]
    for name in names:
        agent_file(home / ".gemini" / "agents", name, f"You are {name.upper()}-BODY.", tools=["read_file"])
        router.script(f"{name.upper()}-BODY", reply(text("still thinking"), delay_s=30.0))
    router.script("parent", reply(*[call("invoke_agent", agent_name=n, prompt="wait") for n in names]))
    with FakeGeminiServer() as server:
        server.responder = router
        session = session_on(server, root, home)
        turn = asyncio.create_task(session.send("wait for them"))
        deadline = time.monotonic() + 20
        while len([who for who, _, _ in router.seen if who != "parent"]) < len(names):
            assert time.monotonic() < deadline, "the runs never started"
            await asyncio.sleep(0.05)
        await asyncio.sleep(rng.uniform(0.0, 0.3))
        cancelled_at = time.monotonic()
        session.cancel()
        assert await asyncio.wait_for(turn, 10) is TurnEndReason.cancelled
        assert time.monotonic() - cancelled_at < 5  # not the 30 s the model would have taken
    answers = session.conversation.snapshot()[-1]
    assert answers.role == "user" and len(answers.parts) == len(names)  # one response for every call

