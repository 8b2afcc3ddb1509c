"""Calls the user runs by hand: `!command` and `/memory add` through the scheduler, asked and cancellable like
the model's own, and what the conversation keeps of them."""

from __future__ import annotations

import json
from pathlib import Path

from gemini_tui.core.ground.confirmation import ConfirmationOutcome, ExecConfirmation
from gemini_tui.core.ground.events import (
    CallFinished,
    CallState,
    CallStateChanged,
    ConfirmationRequested,
)
from gemini_tui.core.ground.parts import TextPart
from tests.core.conftest import EventLog, always
from tests.fakes.scripted_model import ScriptedModel, scripted_session, text


def sent_text(model: ScriptedModel, request: int = 0) -> str:
    return "".join(p.text for c in model.requests[request].contents for p in c.parts if isinstance(p, TextPart))


async def test_shell_command_is_asked_like_the_models_and_joins_the_conversation(root: Path, home: Path) -> None:
    model = ScriptedModel().add(text("Seen."))
    session = scripted_session(root, model, home)
    log = EventLog(session.bus, always(ConfirmationOutcome.proceed_once))
    outcome = await session.run_shell("echo hello-face")
    await log.settle()
    assert outcome.ran and outcome.ok and "hello-face" in outcome.text
    asked = log.of(ConfirmationRequested)
    assert len(asked) == 1 and isinstance(asked[0].details, ExecConfirmation)
    assert asked[0].call.requested_by == "user"
    # the user's own command is not a model call: Gemini CLI's tool statistics leave it out, and so does /stats
    assert session.stats.total_calls == 0 and sum(session.stats.decisions().values()) == 0
    await session.send("what did it print?")
    sent = sent_text(model)
    assert "echo hello-face" in sent and sent.index("hello-face\n") < sent.index("what did it print?")


async def test_a_rejected_shell_command_does_not_run(root: Path, home: Path) -> None:
    session = scripted_session(root, ScriptedModel(), home)
    log = EventLog(session.bus, always(ConfirmationOutcome.cancel))
    outcome = await session.run_shell(f"touch {root / 'made'}")
    await log.settle()
    assert not outcome.ok and not (root / "made").exists()
    assert log.of(CallFinished)[-1].call.state is CallState.cancelled


async def test_shell_command_can_be_cancelled(root: Path, home: Path) -> None:
    import asyncio

    session = scripted_session(root, ScriptedModel(), home, approval_mode="yolo")
    log = EventLog(session.bus)
    running = asyncio.ensure_future(session.run_shell("sleep 30"))
    for _ in range(500):
        if any(e.call.state is CallState.executing for e in log.of(CallStateChanged)):
            break
        await asyncio.sleep(0.01)
    assert session.is_running
    session.cancel()
    outcome = await asyncio.wait_for(running, 10)
    assert not outcome.ok and not session.is_running
    assert log.of(CallFinished)[-1].call.state is CallState.cancelled


async def test_memory_add_runs_save_memory_through_the_scheduler(root: Path, home: Path) -> None:
    session = scripted_session(root, ScriptedModel(), home)
    log = EventLog(session.bus)
    assert session.memory.text == ""
    outcome = await session.add_memory("the tests use pytest")
    await log.settle()
    assert outcome.ok
    calls = [e.call for e in log.of(CallStateChanged)]
    assert {c.name for c in calls} == {"save_memory"} and {c.requested_by for c in calls} == {"user"}
    assert "the tests use pytest" in session.memory.text  # re-read after the tool wrote


async def test_disabled_tools_are_said_not_run(root: Path, home: Path) -> None:
    (home / ".gemini").mkdir()
    (home / ".gemini/settings.json").write_text(json.dumps({"tools": {"core": ["read_file"]}}))
    session = scripted_session(root, ScriptedModel(), home)
    shell = await session.run_shell("echo hi")
    memory = await session.add_memory("x")
    assert not shell.ran and "disabled" in shell.text
    assert not memory.ran and "not enabled" in memory.text
    assert len(session.history) == 0
