"""A prompt's wait for MCP servers: said only past SAY_AFTER_S (with the servers' names), ended early by
`stop`, and quiet when the servers are ready at once."""

from __future__ import annotations

import asyncio

from gemini_tui.core.ground.events import Event, WaitingForServers
from gemini_tui.core.session.service_wait import ServiceWait


async def test_servers_ready_at_once_are_not_mentioned() -> None:
    said: list[Event] = []
    wait = ServiceWait()
    await wait.wait(asyncio.sleep(0), lambda: ["slow"], said.append, 30)
    assert said == [] and not wait.waiting


async def test_a_slow_server_is_named_and_stop_ends_the_wait() -> None:
    said: list[Event] = []
    wait = ServiceWait()
    never = asyncio.get_running_loop().create_future()
    waiting = asyncio.ensure_future(wait.wait(never, lambda: ["slow-server"], said.append, 30))
    while not said:
        await asyncio.sleep(0.05)
    assert said == [WaitingForServers(("slow-server",), 30)] and wait.waiting
    assert wait.stop() is True
    await asyncio.wait_for(waiting, 5)
    assert not wait.waiting and wait.stop() is False and never.cancelled()
