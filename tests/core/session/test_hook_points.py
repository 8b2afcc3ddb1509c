"""HookPoints alone: real command hooks at each point of the turn loop, with a SessionState and no Session (what
the points receive through a whole session is in test_hook_events)."""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.core.approvals.hooks import Hooks
from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.events import EventBus, Notice, TurnEndReason
from gemini_tui.core.ground.parts import TextPart
from gemini_tui.core.session.hook_points import AFTER_AGENT_RETRIES, HookPoints
from gemini_tui.core.session.state import SessionState

# logs the event's name to argv[1], answers argv[2]
SCRIPT = ("import json, sys; d = json.load(sys.stdin); "
          "open(sys.argv[1], 'a').write(d['hook_event_name'] + ' ' + str(d.get('source', '')) + '\\n'); "
          "print(sys.argv[2])")


def hooks_answering(tmp_path: Path, answers: dict[str, dict[str, Any]]) -> tuple[Hooks, Path]:
    """Real hooks for each event of `answers`, each answering its JSON; the log lists the events fired."""
    script, log = tmp_path / "hook.py", tmp_path / "fired.log"
    script.write_text(SCRIPT)
    config = {event: [{"hooks": [{"type": "command", "timeout": 10000,
                                  "command": f"{sys.executable} {script} {log} {json.dumps(json.dumps(answer))}"}]}]
              for event, answer in answers.items()}
    return Hooks(config, tmp_path), log


def fired(log: Path) -> list[str]:
    return log.read_text().split("\n")[:-1] if log.exists() else []


async def never_again(abort: AbortSignal) -> tuple[TurnEndReason, str]:
    raise AssertionError("no AfterAgent hook: the turn is not run again")


def points(tmp_path: Path, hooks: Hooks | None, run_again: Any = never_again) -> HookPoints:
    return HookPoints(hooks, SessionState(tmp_path, EventBus()), run_again)


async def test_without_hooks_every_point_passes_straight_through(tmp_path: Path) -> None:
    hp = points(tmp_path, None)
    parts: list[Any] = [TextPart("hi")]
    gate = await hp.before_agent(parts, "hi")
    assert (gate.parts, gate.end, gate.keep) == (parts, None, True)
    ended = (TurnEndReason.completed, "")
    assert await hp.after_agent("hi", ended, AbortSignal()) == ended
    await hp.pre_compress("auto")
    await hp.session_end("exit")
    hp.on_clear()
    assert hp.stop_requested() is None and not hp.background


async def test_session_start_fires_with_the_first_prompt_only(tmp_path: Path) -> None:
    hooks, log = hooks_answering(tmp_path, {"SessionStart": {"hookSpecificOutput": {"additionalContext": "ctx"}}})
    hp = points(tmp_path, hooks)
    first = await hp.before_agent([TextPart("one")], "one")
    second = await hp.before_agent([TextPart("two")], "two")
    assert first.parts == [TextPart("<hook_context>ctx</hook_context>\n\none")]
    assert second.parts == [TextPart("two")]
    assert fired(log) == ["SessionStart startup"]


@pytest.mark.parametrize(("answer", "end", "keep"), [
    ({}, None, True),
    ({"decision": "deny", "reason": "no"}, (TurnEndReason.blocked, "Agent execution blocked: no"), False),
    ({"continue": False, "stopReason": "halt"}, (TurnEndReason.stopped, "Agent execution stopped: halt"), True),
])
async def test_before_agent_gates_the_prompt(tmp_path: Path, answer: dict[str, Any],
                                             end: tuple[TurnEndReason, str] | None, keep: bool) -> None:
    hooks, _ = hooks_answering(tmp_path, {"BeforeAgent": answer})
    gate = await points(tmp_path, hooks).before_agent([TextPart("hi")], "hi")
    assert (gate.end, gate.keep) == (end, keep)


async def test_after_agent_sends_a_denial_back_a_bounded_number_of_times(tmp_path: Path) -> None:
    hooks, log = hooks_answering(tmp_path, {"AfterAgent": {"decision": "deny", "reason": "try harder"}})
    runs: list[int] = []

    async def run_again(abort: AbortSignal) -> tuple[TurnEndReason, str]:
        runs.append(1)
        return TurnEndReason.completed, ""

    hp = points(tmp_path, hooks, run_again)
    ended = await hp.after_agent("hi", (TurnEndReason.completed, ""), AbortSignal())
    assert ended == (TurnEndReason.completed, "") and len(runs) == AFTER_AGENT_RETRIES
    assert fired(log) == ["AfterAgent "] * (AFTER_AGENT_RETRIES + 1)
    assert hp.state.conversation.texts() == [("user", "\n".join(["try harder"] * AFTER_AGENT_RETRIES))]


async def test_clear_fires_its_hooks_in_the_background_and_keeps_the_new_context(tmp_path: Path) -> None:
    hooks, log = hooks_answering(tmp_path, {"SessionEnd": {},
                                            "SessionStart": {"hookSpecificOutput": {"additionalContext": "fresh"}}})
    hp = points(tmp_path, hooks)
    hp.on_clear()
    assert len(hp.background) == 1  # clearing does not wait for them
    await asyncio.gather(*hp.background)
    assert fired(log) == ["SessionEnd ", "SessionStart clear"]
    assert hp.state.conversation.texts() == [("user", "fresh")] and not hp.background


def test_clear_without_a_running_loop_leaves_no_coroutine_behind(tmp_path: Path) -> None:
    hooks, log = hooks_answering(tmp_path, {"SessionEnd": {}})
    hp = points(tmp_path, hooks)
    # what earlier tests left in this process is put out of the collector's sight: the collection below then
    # looks at this test's objects only (a full one took seconds in a worker deep into the suite)
    gc.freeze()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            hp.on_clear()
            gc.collect()
    finally:
        gc.unfreeze()
    assert [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)] == []
    assert not hp.background and fired(log) == []


async def test_hooks_speak_through_the_session_bus_and_a_tool_stop_ends_the_loop_once(tmp_path: Path) -> None:
    hooks, _ = hooks_answering(tmp_path, {"SessionEnd": {"systemMessage": "bye"}})
    hp = points(tmp_path, hooks)
    events = hp.state.bus.subscribe()
    await hp.session_end("exit")
    notice = await asyncio.wait_for(anext(aiter(events)), 5)
    assert isinstance(notice, Notice) and notice.message == "bye"
    hooks.stop_requested = "a tool hook said stop"
    assert hp.stop_requested() == (TurnEndReason.stopped, "Agent execution stopped: a tool hook said stop")
    assert hp.stop_requested() is None
