"""SVG snapshots of subagents at work: two invoke_agent groups in the live queue and in the chat, one running with
its own calls nested under it, one finished with its result, and the history panel naming each call's agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from gemini_tui.core.ground.display import AgentReport
from gemini_tui.core.ground.events import CallFinished, CallState, CallStateChanged, ToolCallInfo, TurnStarted
from gemini_tui.core.ground.tool_result import ToolResult
from tests.app.app_driver import main_screen, wait_for
from tests.app.test_snapshots import SIZE, app_for, steps
from tests.app.test_snapshots import fixed_root as shared_root
from tests.fakes.scripted_model import ScriptedModel

fixed_root = shared_root  # the snapshots' fixed project folder (a fixture), shared with the main snapshots
REPORT = "Subagent 'beta' finished.\nTermination Reason: GOAL\nResult:\nThe entry point is cli/main.py."


def agent_call(call_id: str, name: str, task: str, state: CallState) -> ToolCallInfo:
    return ToolCallInfo(call_id, "invoke_agent", {"agent_name": name, "prompt": task}, state,
                        f"Delegating to agent '{name}'", "Invoke Subagent")


async def two_agents(pilot: Pilot[Any]) -> None:
    """Events as the schedulers publish them (no start times, so no running clock in the picture)."""
    bus = main_screen(pilot).session.bus
    bus.publish(TurnStarted("p1", "look around"))
    alpha = agent_call("a1", "alpha", "Find where the tests live", CallState.executing)
    beta = agent_call("b1", "beta", "Find the entry point", CallState.executing)
    bus.publish(CallStateChanged(alpha))
    bus.publish(CallStateChanged(beta))
    found = ToolCallInfo("a2", "glob", {"pattern": "tests/**/*.py"}, CallState.success, "'tests/**/*.py'",
                         "FindFiles", agent="alpha", parent_call_id="a1")
    bus.publish(CallStateChanged(found))
    bus.publish(CallFinished(found, ToolResult("Found 40 files", "Found 40 files"), 30))
    reading = ToolCallInfo("a3", "read_file", {"path": "tests/conftest.py"}, CallState.executing,
                           "tests/conftest.py", "ReadFile", agent="alpha", parent_call_id="a1")
    bus.publish(CallStateChanged(reading))
    read = ToolCallInfo("b2", "read_file", {"path": "cli/main.py"}, CallState.success, "cli/main.py", "ReadFile",
                        agent="beta", parent_call_id="b1")
    bus.publish(CallStateChanged(read))
    bus.publish(CallFinished(read, ToolResult("...", "..."), 12))
    ended = agent_call("b1", "beta", "Find the entry point", CallState.success)
    bus.publish(CallFinished(ended, ToolResult(REPORT, AgentReport("beta", "GOAL", "The entry point is cli/main.py.",
                                                                   2, 1.5, REPORT)), 1500))
    screen = main_screen(pilot)
    await wait_for(pilot, lambda: len(screen.queue.entries) == 5 and len(screen.chat.cards) == 5)
    screen.queue.refresh_lines()
    for card in screen.chat.cards.values():
        card.refresh_header()
    await pilot.pause()


def test_two_agents_in_queue_and_chat(snap_compare: Any, fixed_root: Path, tmp_path: Path) -> None:
    assert snap_compare(app_for(fixed_root, tmp_path, ScriptedModel()), terminal_size=SIZE,
                        run_before=steps(two_agents))


def test_history_panel_names_agents(snap_compare: Any, fixed_root: Path, tmp_path: Path) -> None:
    async def open_panel(pilot: Pilot[Any]) -> None:
        await pilot.press("ctrl+b")

    assert snap_compare(app_for(fixed_root, tmp_path, ScriptedModel()), terminal_size=(130, 34),
                        run_before=steps(two_agents, open_panel))
