"""A module's shared agent process (harness.shared_agent), for the tests that need a fresh session, not a process."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from tests.cli.acp.harness import SharedAgent, shared_agent


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def agent_process(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[SharedAgent]:
    async with shared_agent(tmp_path_factory.mktemp("agent")) as shared:
        yield shared


@pytest.fixture
def agent(agent_process: SharedAgent) -> SharedAgent:
    """The module's agent process, its fake Gemini server as new (the previous test's script and requests gone)."""
    agent_process.server.reset()
    return agent_process
