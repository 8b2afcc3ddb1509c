"""The session's background services: discovered tools join the registry when discovery ends (a name taken, or a
failed discovery, is a notice), a start with no wait never waits, a bounded wait returns on time, and closing
ends a discovery command still running."""

from __future__ import annotations

import asyncio
import os
import time

import pytest

from gemini_tui.core.ground.events import Notice
from gemini_tui.core.session.services import BackgroundServices
from gemini_tui.core.tooling.discovered_tool import BackgroundDiscovery
from gemini_tui.core.tooling.registry import ToolRegistry
from tests.core.tooling.test_discovery import CALL, command


def services(mode: str, registry: ToolRegistry | None = None) -> tuple[BackgroundServices, list[Notice]]:
    notices: list[Notice] = []
    found = BackgroundServices(registry if registry is not None else ToolRegistry(), None,
                               BackgroundDiscovery(command(mode), CALL),
                               notices.append)
    return found, notices


async def test_discovered_tools_join_once_discovery_ends() -> None:
    background, notices = services("ok")
    await background.start(wait_s=None)
    assert sorted(t.name for t in background.registry.tools) == ["add", "shout"] and notices == []
    await background.start(wait_s=None)  # started once: nothing registered twice
    assert len(background.registry.tools) == 2
    await background.close()


async def test_a_taken_name_and_a_failed_discovery_are_notices() -> None:
    registry = ToolRegistry()
    first, _ = services("ok", registry)
    await first.start(wait_s=None)
    second, notices = services("ok", registry)
    await second.start(wait_s=None)
    assert [n.message for n in notices] == [
        f"Discovered tool {name} skipped: a tool with this name is already registered." for name in ("add", "shout")]
    for mode in ("fail", "badjson"):
        broken, said = services(mode)
        await broken.start(wait_s=None)
        assert said and all(n.level == "warning" for n in said) and broken.registry.tools == [], mode


@pytest.mark.parametrize("wait_s", [0.0, 0.3])
async def test_a_start_waits_only_as_long_as_it_is_told(wait_s: float) -> None:
    background, _ = services("hang")
    started = time.monotonic()
    await background.start(wait_s=wait_s)
    assert time.monotonic() - started < wait_s + 5  # not the discovery's own minutes
    assert background.registry.tools == []
    await background.close()


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")  # no traceback at quit
async def test_closing_ends_a_discovery_still_running() -> None:
    background, _ = services("hang")
    await background.start(wait_s=0)
    discovery = background.discovery
    assert isinstance(discovery, BackgroundDiscovery)
    deadline = time.monotonic() + 10
    while discovery.process is None and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert discovery.process is not None
    await background.close()
    await asyncio.sleep(0)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(discovery.process.pid, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the discovery command outlived the session")
    await asyncio.sleep(0.5)  # the discovery thread ends on its own, quietly
