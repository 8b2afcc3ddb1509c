"""The live queue: every state of the current turn's calls, and live output while a command runs."""

from __future__ import annotations

from pathlib import Path

from gemini_tui.app.call_log import CallLog
from gemini_tui.app.widgets.queue import ToolQueue
from gemini_tui.core.ground.events import CallState, ToolCallInfo
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes.scripted_model import ScriptedModel, call, text


async def test_running_command_shows_live_output(root: Path, tmp_path: Path) -> None:
    flag = root / "go"
    script = f"echo first; echo second; while [ ! -e {flag} ]; do sleep 0.05; done; echo third"
    model = ScriptedModel().add(call("run_shell_command", command=script)).add(text("ok"))
    app = make_app(root, tmp_path, model, approval_mode="yolo")
    async with app.run_test(size=(120, 36)) as pilot:
        screen = main_screen(pilot)
        queue = screen.query_one(ToolQueue)
        await type_and_send(pilot, "run")
        await wait_for(pilot, lambda: any(e.last_output == "second" for e in queue.entries.values()))
        (entry,) = queue.entries.values()
        assert entry.call.state is CallState.executing
        assert queue.display
        rendered = str(queue.queue_text())
        assert "running" in rendered and "│ second" in rendered
        flag.write_text("")
        await wait_for(pilot, lambda: not screen.busy)
        assert entry.call.state is CallState.success
        assert "done" in str(queue.queue_text())


async def test_queue_lists_each_state_and_clears_on_next_turn(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(120, 36)) as pilot:
        queue = main_screen(pilot).query_one(ToolQueue)
        calls = CallLog()
        for index, state in enumerate(CallState):
            queue.show(calls.update(ToolCallInfo(f"c{index}", "tool", {}, state, f"call {state.value}", "Tool")))
        await pilot.pause()
        rendered = str(queue.queue_text())
        for word in ("waiting", "awaiting approval", "running", "done", "failed", "cancelled"):
            assert word in rendered
        queue.start_turn()
        await pilot.pause()
        assert not queue.display
    assert not (root / "anything").exists()
