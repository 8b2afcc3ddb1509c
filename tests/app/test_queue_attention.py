"""The queue explains its calls: what needs the user first, done calls folded, failures with target and error,
tool time apart from the time spent waiting for the user, and it closes with its turn (a `!command` too)."""

from __future__ import annotations

import random
from pathlib import Path

from gemini_tui.app.widgets.queue import MAX_ROWS, ORDER, QueueEntry, ToolQueue, queue_text
from gemini_tui.core.ground.events import CallState, ToolCallInfo
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.app.test_confirmations import GRACE
from tests.fakes.scripted_model import ScriptedModel, call, text

ATTENTION = (CallState.awaiting_approval, CallState.executing, CallState.error)


def test_generated_queues_show_what_needs_attention_and_fold_the_rest() -> None:
    rng = random.Random(26)
    states = list(CallState)
    for _ in range(400):
        entries = [QueueEntry(ToolCallInfo(f"c{i}", "tool", {}, rng.choice(states), f"target-{i}", "Tool"),
                              ran_at=0.0, ended_at=1.0) for i in range(rng.randint(0, 40))]
        rows = queue_text(entries, now=2.0).plain.splitlines()
        listed = [line for line in rows[1:] if "target-" in line]
        attention = sorted((e for e in entries if e.call.state in ATTENTION), key=lambda e: ORDER[e.call.state])
        assert len(listed) <= MAX_ROWS
        # every call that needs the user is listed while there is room for them, before anything else
        for entry in attention[:MAX_ROWS]:
            assert any(f"target-{entry.call.call_id[1:]} " in line + " " for line in listed)
        order = [ORDER[next(e for e in entries if f"target-{e.call.call_id[1:]} " in line + " ").call.state]
                 for line in listed]
        assert order == sorted(order)
        done = sum(e.call.state is CallState.success for e in entries)
        if len(entries) > MAX_ROWS and done:
            assert rows[-1].strip().startswith(f"✓ {done} done")


async def test_twenty_six_calls_the_awaiting_command_is_in_the_queue(root: Path, tmp_path: Path) -> None:
    for i in range(25):
        (root / f"f{i}.txt").write_text(f"file {i}\n")
    calls = [call("read_file", absolute_path=str(root / f"f{i}.txt")) for i in range(25)]
    calls.append(call("run_shell_command", command="echo the-one-that-matters"))
    model = ScriptedModel().add(*calls).add(text("All read."))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = main_screen(pilot)
        queue = screen.query_one(ToolQueue)
        await type_and_send(pilot, "read everything then run")
        await wait_for(pilot, lambda: any(e.call.state is CallState.awaiting_approval
                                          for e in queue.entries.values()))
        await pilot.pause(0.3)
        rendered = queue.queue_text().plain
        lines = rendered.splitlines()
        assert "echo the-one-that-matters" in lines[1] and "awaiting approval" in lines[1]
        assert queue.region.height >= 2  # it is on screen, not cut off below the fold
        assert any("done" in line for line in lines[2:])
        await pilot.pause(GRACE)
        await pilot.press("y")
        await wait_for(pilot, lambda: not screen.busy)
        assert not queue.display  # the queue closes with its turn


async def test_a_failed_row_keeps_its_target_and_shows_its_error(root: Path, tmp_path: Path) -> None:
    missing = root / "nowhere.txt"
    model = ScriptedModel().add(call("replace", file_path=str(missing), old_string="a", new_string="b"))
    model.add(call("read_file", absolute_path=str(root / "f.txt"))).add(text("ok"))
    (root / "f.txt").write_text("x\n")
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(140, 36)) as pilot:
        screen = main_screen(pilot)
        queue = screen.query_one(ToolQueue)
        await type_and_send(pilot, "edit a missing file")
        await wait_for(pilot, lambda: any(e.call.state is CallState.error for e in queue.entries.values()))
        lines = queue.queue_text().plain.splitlines()
        row = next(i for i, line in enumerate(lines) if i and "failed" in line)
        assert "nowhere.txt" in lines[row]
        assert lines[row + 1].strip().startswith("└") and len(lines[row + 1].strip()) > 5
        await wait_for(pilot, lambda: not screen.busy)


async def test_duration_is_tool_time_and_waiting_is_shown_apart(root: Path, tmp_path: Path) -> None:
    model = ScriptedModel().add(call("run_shell_command", command="echo hi")).add(text("ok"))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(140, 36)) as pilot:
        screen = main_screen(pilot)
        queue = screen.query_one(ToolQueue)
        await type_and_send(pilot, "run")
        await wait_for(pilot, lambda: any(e.call.state is CallState.awaiting_approval
                                          for e in queue.entries.values()))
        await pilot.pause(1.2)  # the user takes their time
        await pilot.press("y")
        await wait_for(pilot, lambda: all(e.ended_at for e in queue.entries.values()))
        (entry,) = queue.entries.values()
        assert entry.waited_s >= 1.0
        tool = entry.tool_seconds(0)
        assert tool is not None and tool < entry.waited_s
        assert "for you)" in queue.queue_text().plain and "(waited 1." in queue.queue_text().plain
        await wait_for(pilot, lambda: not screen.busy)


async def test_a_shell_command_after_a_turn_shows_only_itself_and_closes(root: Path, tmp_path: Path) -> None:
    (root / "a.txt").write_text("a\n")
    model = ScriptedModel().add(call("glob", pattern="*.txt")).add(text("Found."))
    app = make_app(root, tmp_path, model, approval_mode="yolo")
    async with app.run_test(size=(120, 36)) as pilot:
        screen = main_screen(pilot)
        queue = screen.query_one(ToolQueue)
        await type_and_send(pilot, "list")
        await wait_for(pilot, lambda: not screen.busy)
        await type_and_send(pilot, "!echo from-the-user")
        await wait_for(pilot, lambda: any(e.call.name == "run_shell_command" for e in queue.entries.values()))
        assert [e.call.name for e in queue.entries.values()] == ["run_shell_command"]
        await wait_for(pilot, lambda: not screen.busy)
        assert not queue.display
