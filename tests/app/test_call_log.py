"""One record per tool call: the CallLog keeps state, output tail, result, durations and the decision; the chat
card, the queue and the history panel all render that same record."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from textual.widgets import Static

from gemini_tui.app.call_log import DECIDED_BY_POLICY, DECIDED_BY_USER, NOT_ASKED, TAIL_LINES, CallLog
from gemini_tui.app.screens.history_details import HistoryDetailsScreen, decision_text
from gemini_tui.app.widgets.confirm_bar import ConfirmBar
from gemini_tui.app.widgets.history_panel import HistoryPanel
from gemini_tui.core.ground.events import READ_ONLY_RULE, CallState, ToolCallInfo
from gemini_tui.core.ground.tool_result import ToolResult
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.app.test_confirmations import GRACE
from tests.fakes.scripted_model import ScriptedModel, call, text


def info(state: CallState, decision: str | None = None, call_id: str = "c1", rule: str = "",
         verdict: str = "") -> ToolCallInfo:
    return ToolCallInfo(call_id, "run_shell_command", {"command": "ls"}, state, "ls", "Shell", started_at=1.0,
                        outcome=decision, rule=rule, decision=verdict)


def test_a_call_asked_and_accepted_is_decided_by_the_user_with_its_wait() -> None:
    log = CallLog()
    record = log.update(info(CallState.validating))
    assert log.update(info(CallState.awaiting_approval)) is record
    time.sleep(0.02)
    assert record.waiting_s() >= 0.02  # still waiting: the wait so far counts
    log.update(info(CallState.scheduled, "accept"))
    waited = record.waited_s
    assert waited >= 0.02 and record.waiting_s() == waited
    log.update(info(CallState.executing, "accept"))
    finished = log.finish(info(CallState.success, "accept"), ToolResult("ok", "ok"), 1234)
    assert finished is record and record.duration_ms == 1234 and record.result is not None
    assert record.decided_by == DECIDED_BY_USER and record.waited_s == waited
    assert decision_text(record).startswith(f"Decision: accept, by {DECIDED_BY_USER} after ")


# auto_accept is every call nobody was asked about: by a mode, rule or grant, or because it needed no asking
@pytest.mark.parametrize(("decision", "rule", "verdict", "decided_by"), [
    ("auto_accept", "approval mode yolo", "allow", DECIDED_BY_POLICY),
    ("auto_accept", "session grant", "allow", DECIDED_BY_POLICY),
    ("auto_accept", READ_ONLY_RULE, "allow", NOT_ASKED),
    ("auto_accept", "approval mode default", "ask", NOT_ASKED),  # the tool found nothing to review
    (None, "approval mode plan", "deny", None),  # refused before any decision
    (None, "", "", None)])
def test_who_decided_a_call_nobody_was_asked_about(decision: str | None, rule: str, verdict: str,
                                                   decided_by: str | None) -> None:
    log = CallLog()
    record = log.finish(info(CallState.success, decision, rule=rule, verdict=verdict), ToolResult("ok", "ok"), 5)
    assert record.decided_by == decided_by and record.waited_s == 0.0 and not record.was_asked


def test_output_keeps_a_tail_of_non_blank_lines() -> None:
    log = CallLog()
    assert log.add_output("nobody", "x\n") is None
    record = log.update(info(CallState.executing))
    rng = random.Random(7)
    lines = [f"line {n}" for n in range(200)]
    fed = 0
    while fed < len(lines):
        size = rng.randint(1, 9)
        chunk = "\n\n".join(lines[fed:fed + size]) + "\n   \n"
        fed += size
        before = record.revision
        assert log.add_output("c1", chunk) is record and record.revision > before
    assert list(record.output_tail) == lines[-TAIL_LINES:] and record.last_output == "line 199"
    assert log.add_output("c1", "  \n\n") is None  # nothing to show: no change


def test_records_keep_the_order_calls_appeared_in() -> None:
    log = CallLog()
    ids = [f"c{n}" for n in random.Random(3).sample(range(1000), 50)]
    for call_id in ids:
        log.update(info(CallState.validating, call_id=call_id))
    for call_id in reversed(ids):
        log.update(info(CallState.success, call_id=call_id))
    assert [r.call_id for r in log.records()] == ids and len(log) == 50 and "c-1" not in log


async def test_card_queue_and_history_render_one_record(root: Path, tmp_path: Path) -> None:
    model = ScriptedModel().add(call("run_shell_command", command="echo hi")).add(text("Done."))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "say hi")
        bar = screen.query_one(ConfirmBar)
        await wait_for(pilot, lambda: bar.request is not None)
        await pilot.pause(GRACE)
        await pilot.press("y")
        await wait_for(pilot, lambda: not screen.busy)
        [record] = screen.calls.records()
        panel = screen.query_one(HistoryPanel)
        await wait_for(pilot, lambda: record.call_id in panel.entries)
        assert screen.chat.cards[record.call_id].record is record
        assert screen.queue.entries[record.call_id] is record
        assert panel.entries[record.call_id].record is record
        assert record.state is CallState.success and record.decided_by == DECIDED_BY_USER
        assert record.duration_ms is not None and "hi" in record.last_output
        panel.open_details(panel.entries[record.call_id])
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryDetailsScreen)
                       and app.screen.query("#details-decision"))
        decided = str(app.screen.query_one("#details-decision", Static).render())
        assert decided.startswith(f"Decision: accept, by {DECIDED_BY_USER} after")
