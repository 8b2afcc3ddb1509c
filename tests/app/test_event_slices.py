"""A burst of a session's events (many agents at once) is handled in slices: the event loop gets turns in between,
so a key pressed meanwhile is not held back until the whole burst is handled; the events are still handled in
their order."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gemini_tui.core.ground.events import CallState, CallStateChanged, ToolCallInfo, TurnStarted
from tests.app.app_driver import wait_for
from tests.app.test_hidden_session_updates import two_sessions
from tests.app.test_several_sessions import window
from tests.fakes.scripted_model import ScriptedModel


@pytest.mark.parametrize("burst", [1500, 4000])
async def test_a_burst_of_events_lets_the_loop_run_in_between(root: Path, tmp_path: Path, burst: int) -> None:
    app = window(root, tmp_path, ScriptedModel(), ScriptedModel())
    async with app.run_test(size=(120, 40)) as pilot:
        hidden, _ = await two_sessions(pilot, app)  # its chat keeps its updates: no widget work hides a step
        bus = hidden.session.bus
        bus.publish(TurnStarted("p1", "go"))
        await wait_for(pilot, lambda: hidden.status.busy)
        for n in range(burst):
            bus.publish(CallStateChanged(ToolCallInfo(f"c{n}", "glob", {"pattern": f"*{n}"}, CallState.scheduled,
                                                      f"*{n}", "Glob")))
        turns = 0  # how often the loop came back to this task while the burst was being handled
        while len(hidden.calls) < burst:
            await asyncio.sleep(0)
            turns += 1
        assert [record.call_id for record in hidden.calls.records()] == [f"c{n}" for n in range(burst)]
        assert turns >= 3, turns
