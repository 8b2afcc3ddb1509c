"""The turn loop against a fake Gemini server, through the real google-genai client."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from gemini_tui.core.ground.confirmation import ConfirmationOutcome
from gemini_tui.core.ground.events import (
    CallFinished,
    CallState,
    CallStateChanged,
    ErrorOccurred,
    LoopSuspected,
    Retrying,
    TextDelta,
    ThoughtDelta,
    ToolOutputChunk,
    TurnEndReason,
    TurnFinished,
    UsageUpdated,
)
from gemini_tui.core.session.scheduler import ApprovalMode
from tests.core.conftest import EventLog, always
from tests.fakes.gemini_server import call, error_reply, reply, text, thought


async def test_streamed_text_thoughts_and_usage(gemini_server, make_session) -> None:
    gemini_server.script(reply(thought("Pondering."), text("Hello "), text("there."),
                               usage={"promptTokenCount": 7, "candidatesTokenCount": 3, "totalTokenCount": 10}))
    session = make_session()
    log = EventLog(session.bus)
    assert await session.send("hi") is TurnEndReason.completed
    await log.settle()
    assert "".join(e.text for e in log.of(TextDelta)) == "Hello there."
    assert [e.text for e in log.of(ThoughtDelta)] == ["Pondering."]
    assert log.of(UsageUpdated)[-1].usage.total_tokens == 10
    assert session.stats.models["gemini-2.5-pro"].tokens.prompt == 7
    request = gemini_server.requests[0]
    assert request.path == "/v1beta/models/gemini-2.5-pro:streamGenerateContent"
    assert request.query == {"alt": ["sse"]}
    assert request.headers["x-goog-api-key"] == "test-key"
    assert set(request.function_names()) == {"read_note", "write_note", "run_command", "stubborn"}
    assert "Hello there." in str(session.history[-1])


async def test_function_response_reaches_the_model(gemini_server, make_session, root: Path) -> None:
    (root / "a.txt").write_text("alpha")
    gemini_server.script(reply(text("Reading."), call("read_note", name="a.txt")), reply(text("It says alpha.")))
    session = make_session()
    log = EventLog(session.bus)
    assert await session.send("read a") is TurnEndReason.completed
    await log.settle()
    [response] = gemini_server.function_responses(1)
    assert response["name"] == "read_note"
    assert response["response"] == {"output": "alpha"}
    # the call went back to the model with the same id the response carries
    model_turn = gemini_server.requests[1].contents[1]
    assert model_turn["role"] == "model"
    assert model_turn["parts"][-1]["functionCall"]["id"] == response["id"]
    states = [e.call.state for e in log.of(CallStateChanged)]
    assert states[0] is CallState.validating
    assert states[-3:] == [CallState.scheduled, CallState.executing, CallState.success]
    assert log.of(CallFinished)[0].result.return_display == "alpha"


async def test_several_reads_run_concurrently_edits_in_order(gemini_server, make_session, root: Path,
                                                           tools) -> None:
    for name in ("a", "b", "c"):
        (root / name).write_text(name.upper())
    gemini_server.script(
        reply(call("read_note", name="a", delay=0.3), call("read_note", name="b", delay=0.3),
              call("write_note", name="c", content="new"), call("read_note", name="c")),
        reply(text("Done.")),
    )
    session = make_session(ApprovalMode.yolo)
    assert await session.send("go") is TurnEndReason.completed
    runs = {name: (start, end) for name, start, end in tools["read"].runs}
    assert runs["a"][0] < runs["b"][1] and runs["b"][0] < runs["a"][1]  # overlapped (no clock margin: under load
    # a wall-time bound failed while the overlap itself held)
    responses = gemini_server.function_responses(1)
    assert [r["name"] for r in responses] == ["read_note", "read_note", "write_note", "read_note"]
    assert responses[3]["response"] == {"output": "new"}  # read after the edit sees it: order kept


async def test_unknown_tool_and_invalid_arguments(gemini_server, make_session) -> None:
    gemini_server.script(reply(call("read_note_x", name="a"), call("read_note", nam="a")), reply(text("Sorry.")))
    session = make_session()
    assert await session.send("go") is TurnEndReason.completed
    unknown, invalid = gemini_server.function_responses(1)
    assert "not found in registry" in unknown["response"]["error"]
    assert "Did you mean 'read_note'" in unknown["response"]["error"]
    assert "'name'" in invalid["response"]["error"] and "'nam'" in invalid["response"]["error"]


async def test_429_with_retry_delay_is_honoured(gemini_server, make_session) -> None:
    gemini_server.script(error_reply(429, "Quota exceeded", retry_delay="0.4s"), reply(text("Finally.")))
    session = make_session()
    log = EventLog(session.bus)
    started = time.monotonic()
    assert await session.send("hi") is TurnEndReason.completed
    await log.settle()
    assert time.monotonic() - started >= 0.4
    [retry] = log.of(Retrying)
    assert retry.delay_s == 0.4 and "429" in retry.reason and not retry.discard_partial
    assert len(gemini_server.requests) == 2


async def test_retry_after_header_and_500(gemini_server, make_session) -> None:
    gemini_server.script(error_reply(503, "busy", headers={"Retry-After": "0.2"}), error_reply(500, "oops"),
                         reply(text("Up.")))
    session = make_session()
    log = EventLog(session.bus)
    assert await session.send("hi") is TurnEndReason.completed
    await log.settle()
    assert log.of(Retrying)[0].delay_s == 0.2
    assert len(log.of(Retrying)) == 2


async def test_stream_reset_midway_is_retried_and_partial_discarded(gemini_server, make_session) -> None:
    gemini_server.script(reply(text("Partial "), text("answer"), cut_after=1), reply(text("Whole answer.")))
    session = make_session()
    log = EventLog(session.bus)
    assert await session.send("hi") is TurnEndReason.completed
    await log.settle()
    [retry] = log.of(Retrying)
    assert retry.discard_partial
    assert session.history[-1].parts[0].text == "Whole answer."  # the partial text is not in history


async def test_client_errors_are_not_retried(gemini_server, make_session) -> None:
    gemini_server.script(error_reply(400, "Invalid JSON payload"))
    session = make_session()
    log = EventLog(session.bus)
    assert await session.send("hi") is TurnEndReason.error
    await log.settle()
    assert len(gemini_server.requests) == 1
    [error] = log.of(ErrorOccurred)
    assert "Invalid JSON payload" in error.message and "400" in error.message


async def test_gives_up_after_five_attempts(gemini_server, make_session) -> None:
    gemini_server.script(*[error_reply(500, "down")] * 6)
    session = make_session()
    assert await session.send("hi") is TurnEndReason.error
    assert len(gemini_server.requests) == 5
    stats = session.stats.models["gemini-2.5-pro"]
    assert stats.requests == 5 and stats.errors == 5 and stats.errors_by_type == {"server": 5}


async def test_cancel_during_a_slow_stream(gemini_server, make_session) -> None:
    gemini_server.script(reply(text("one "), text("two "), text("three"), delay_s=4))
    session = make_session()
    log = EventLog(session.bus)
    task = asyncio.ensure_future(session.send("hi"))
    while not log.of(TextDelta):
        await asyncio.sleep(0.01)
    started = time.monotonic()
    session.cancel()
    assert await task is TurnEndReason.cancelled
    assert time.monotonic() - started < 2  # the next chunk is 4 s away: the turn did not wait for it
    await log.settle()
    assert log.of(TurnFinished)[-1].reason is TurnEndReason.cancelled
    assert session.history[-1].parts[0].text == "one "  # what the user saw stays


async def test_cancel_during_slow_tools_answers_every_call(gemini_server, make_session, tools) -> None:
    gemini_server.script(reply(call("run_command", command="sleep 10", seconds=10),
                               call("run_command", command="echo later")))
    session = make_session(ApprovalMode.yolo)
    log = EventLog(session.bus)
    task = asyncio.ensure_future(session.send("go"))
    while not log.of(ToolOutputChunk):
        await asyncio.sleep(0.01)
    session.cancel()
    assert await task is TurnEndReason.cancelled
    await log.settle()
    responses = session.history[-1].parts
    assert [r.name for r in responses] == ["run_command", "run_command"]
    assert all("error" in r.response for r in responses)
    assert tools["run"].ran == []
    final = [e.call.state for e in log.of(CallFinished)]
    assert final == [CallState.cancelled, CallState.cancelled]
    assert log.of(ToolOutputChunk)[0].chunk == "running sleep 10\n"  # published from the tool's thread


async def test_cancel_ends_a_tool_that_ignores_its_signal(gemini_server, make_session, monkeypatch) -> None:
    monkeypatch.setattr("gemini_tui.core.session.scheduler.ABORT_GRACE_S", 0.1)
    gemini_server.script(reply(call("stubborn", command="x", seconds=30)))
    session = make_session()
    log = EventLog(session.bus)
    task = asyncio.ensure_future(session.send("go"))
    while not any(e.call.state is CallState.executing for e in log.of(CallStateChanged)):
        await asyncio.sleep(0.01)
    session.cancel()
    assert await asyncio.wait_for(task, 2) is TurnEndReason.cancelled
    assert "error" in session.history[-1].parts[0].response


async def test_same_call_five_times_is_a_loop(gemini_server, make_session, root: Path) -> None:
    (root / "a").write_text("A")
    gemini_server.script(*[reply(call("read_note", name="a")) for _ in range(6)])
    session = make_session()
    log = EventLog(session.bus)
    assert await session.send("go") is TurnEndReason.loop_detected
    await log.settle()
    assert len(gemini_server.requests) == 5
    assert "Loop detected" in log.of(TurnFinished)[-1].message
    # the history stays valid: the last call has its response
    assert "error" in session.history[-1].parts[0].response


async def test_repeating_text_is_a_loop_headless(gemini_server, make_session) -> None:
    gemini_server.script(reply(*[text("I will check the file again now, to be sure of it. ")] * 30))
    session = make_session(interactive=False)
    assert await session.send("go") is TurnEndReason.loop_detected


@pytest.mark.parametrize("keep_going", [False, True])
async def test_in_the_app_a_suspected_loop_asks(gemini_server, make_session, keep_going: bool) -> None:
    """Interactive sessions publish LoopSuspected and wait: stop ends the turn, keep going streams on."""
    sentence = "I will check the file again now, to be sure of it. "
    gemini_server.script(reply(*[text(sentence)] * 30, text("Finished.")))
    session = make_session()
    asked: list[LoopSuspected] = []

    async def answer() -> None:
        async for event in session.bus.subscribe():
            if isinstance(event, LoopSuspected):
                asked.append(event)
                event.future.set_result(keep_going)

    watcher = asyncio.ensure_future(answer())
    reason = await session.send("go")
    watcher.cancel()
    assert len(asked) == 1 and "repeat itself" in asked[0].message
    if keep_going:
        assert reason is TurnEndReason.completed
        assert session.history[-1].parts[-1].text.endswith("Finished.")
    else:
        assert reason is TurnEndReason.loop_detected
        assert "Finished." not in session.history[-1].parts[-1].text


async def test_disable_loop_detection_setting(gemini_server, make_session) -> None:
    gemini_server.script(reply(*[text("I will check the file again now, to be sure of it. ")] * 30))
    session = make_session(interactive=False, disable_loop_detection=True)
    assert await session.send("go") is TurnEndReason.completed


async def test_max_turns(gemini_server, make_session, root: Path) -> None:
    (root / "a").write_text("A")
    gemini_server.script(*[reply(call("read_note", name="a", delay=i / 1000)) for i in range(5)])
    session = make_session(max_session_turns=3)
    assert await session.send("go") is TurnEndReason.max_turns
    assert len(gemini_server.requests) == 3


async def test_modified_edit_tells_the_model(gemini_server, make_session, root: Path) -> None:
    (root / "n").write_text("old\n")
    gemini_server.script(reply(call("write_note", name="n", content="model version\n")), reply(text("Ok.")))
    session = make_session()
    EventLog(session.bus, always(ConfirmationOutcome.modify, new_content="user version\n",
                                 feedback="The user rejected hunk 1."))
    assert await session.send("edit") is TurnEndReason.completed
    assert (root / "n").read_text() == "user version\n"
    [response] = gemini_server.function_responses(1)
    output = response["response"]["output"]
    assert "modified the proposed content" in output and "The user rejected hunk 1." in output
    assert session.stats.tools["write_note"].decisions["modify"] == 1
    assert session.stats.lines_added == 1 and session.stats.lines_removed == 1


async def test_no_answer_with_an_unusual_finish_reason_is_an_error(gemini_server, make_session) -> None:
    gemini_server.script(reply(finish="SAFETY"))
    session = make_session()
    log = EventLog(session.bus)
    assert await session.send("hi") is TurnEndReason.error
    await log.settle()
    assert "finish reason SAFETY" in log.of(ErrorOccurred)[0].message
    assert len(gemini_server.requests) == 1


async def test_stream_without_finish_reason_is_retried(gemini_server, make_session) -> None:
    truncated = reply(text("x"))
    del truncated.chunks[-1]["candidates"][0]["finishReason"]
    truncated.chunks[-1]["candidates"][0]["content"]["parts"] = []
    gemini_server.script(truncated, reply(text("Complete.")))
    session = make_session()
    assert await session.send("hi") is TurnEndReason.completed
    assert len(gemini_server.requests) == 2


async def test_cancelling_the_task_keeps_the_history_valid(gemini_server, make_session) -> None:
    gemini_server.script(reply(call("run_command", command="sleep", seconds=10)), reply(text("After.")))
    session = make_session(ApprovalMode.yolo)
    log = EventLog(session.bus)
    task = asyncio.ensure_future(session.send("go"))
    while not log.of(ToolOutputChunk):
        await asyncio.sleep(0.01)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await log.settle()
    assert log.of(TurnFinished)[-1].reason is TurnEndReason.cancelled
    assert session.history[-1].role == "user" and "error" in session.history[-1].parts[0].response
    assert await session.send("next") is TurnEndReason.completed


async def test_an_answer_cut_short_says_why(gemini_server, make_session) -> None:
    from gemini_tui.core.ground.events import Notice

    gemini_server.script(reply(text("The first half"), finish="MAX_TOKENS"), reply(text("Fine."), finish="STOP"))
    session = make_session()
    log = EventLog(session.bus)
    assert await session.send("write a lot") is TurnEndReason.completed
    assert await session.send("again") is TurnEndReason.completed
    await log.settle()
    [notice] = log.of(Notice)
    assert notice.level == "warning" and "MAX_TOKENS" in notice.message and "output token limit" in notice.message
    assert "The first half" in str(session.history[1])  # what came is kept
