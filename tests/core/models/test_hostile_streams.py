"""Hundreds of generated hostile model replies through the real google-genai client and the real Session:
no turn ends in a traceback or an internal error, and every function call gets exactly one response (in the
session's history and in what the server received next)."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.core.ground.events import ErrorOccurred, EventBus, TurnEndReason
from gemini_tui.core.ground.model_api import FunctionCall, FunctionResponse
from gemini_tui.core.models.gemini import GeminiModel
from gemini_tui.core.models.retry import RetryPolicy
from gemini_tui.core.session.session import Session
from gemini_tui.core.setup.config import Settings
from gemini_tui.core.tooling.registry import ToolRegistry
from tests.core.conftest import EventLog
from tests.fakes import warm_start
from tests.fakes.gemini_server import FakeGeminiServer, reply, text
from tests.fakes.hostile import hostile_cases, stall_reply

CASES = hostile_cases(360)
BATCHES = 9
QUICK = RetryPolicy(max_attempts=3, initial_delay_s=0.001, max_delay_s=0.005, jitter=0.0)


def _pairs_in_history(session: Session) -> None:
    history = session.history
    for index, content in enumerate(history):
        calls = [p.id for p in content.parts if isinstance(p, FunctionCall)]
        if not calls:
            continue
        assert index + 1 < len(history), "a call is the last thing in history, without a response"
        answers = [p.id for p in history[index + 1].parts if isinstance(p, FunctionResponse)]
        assert sorted(answers) == sorted(calls)


def _pairs_sent(contents: list[dict[str, Any]]) -> None:
    """What the client sent: every functionCall of a model content answered once in the next content."""
    for index, content in enumerate(contents):
        calls = [p["functionCall"] for p in content.get("parts", []) if "functionCall" in p]
        if not calls:
            continue
        assert isinstance(calls[0].get("args", {}), dict)
        answers = [p["functionResponse"] for p in contents[index + 1].get("parts", []) if "functionResponse" in p]
        assert sorted(a.get("id") or "" for a in answers) == sorted(c.get("id") or "" for c in calls)
        assert len(answers) == len(calls)


@pytest.mark.parametrize("batch", range(BATCHES))
async def test_hostile_replies_never_crash_a_turn(batch: int, gemini_server: FakeGeminiServer, tools, root: Path,
                                                  home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # what earlier tests of this worker left for the collector (their unclosed generators and tasks) is collected
    # now, and what that reports dropped: in the middle of these cases it would be taken for theirs
    hook = sys.unraisablehook
    sys.unraisablehook = lambda _unraisable: None
    try:
        gc.collect()
    finally:
        sys.unraisablehook = hook
    capsys.readouterr()
    (root / "a").write_text("A")
    model = GeminiModel("gemini-2.5-pro", "test-key", base_url=gemini_server.base_url, policy=QUICK,
                        idle_timeout_s=2.0)
    registry = ToolRegistry()
    for tool in tools.values():
        registry.register(tool)
    for name, hostile in CASES[batch::BATCHES]:
        first = len(gemini_server.requests)
        gemini_server.script(hostile, reply(text("Done.")))
        session = Session(Settings(home=home), registry, model, root, EventBus(), interactive=False)
        events = EventLog(session.bus)
        reason = await session.send("go")
        await events.settle()
        gemini_server._script.clear()
        errors = [e.message for e in events.of(ErrorOccurred)]
        assert reason in (TurnEndReason.completed, TurnEndReason.error), name
        assert not any("Internal error" in m or "Traceback" in m for m in errors), (name, errors)
        _pairs_in_history(session)
        for request in gemini_server.requests[first:]:
            _pairs_sent(request.contents)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "Traceback" not in captured.out


async def test_bad_calls_get_their_own_error_and_good_ones_still_run(gemini_server: FakeGeminiServer,
                                                                     make_session, root: Path) -> None:
    from tests.fakes.gemini_server import Reply

    (root / "a").write_text("A")
    chunk = {"candidates": [{"content": {"role": "model", "parts": [
        {"text": "Reading."},
        {"functionCall": {"name": "read_note", "args": '{"name": "a"}'}},
        {"functionCall": {"name": "read_note", "args": {"name": {"a": {"b": {"c": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[
            [[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}}}}},
        {"functionCall": {"name": "read_note", "args": {"name": "a"}}},
        {"text": 5},
    ]}, "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": "many"}}
    gemini_server.script(Reply(chunks=[chunk]), reply(text("Done.")))
    session = make_session()
    assert await session.send("go") is TurnEndReason.completed
    answers = gemini_server.function_responses(1)
    assert len(answers) == 3
    assert "args were a string" in answers[0]["response"]["error"]
    assert "nest more than 32 levels" in answers[1]["response"]["error"]
    assert answers[2]["response"] == {"output": "A"}
    sent = gemini_server.requests[1].contents[1]["parts"]
    # the malformed calls go back with empty args (the API would refuse a string); the text part 5 is dropped
    assert [p["functionCall"].get("args") or {} for p in sent if "functionCall" in p] == [{}, {}, {"name": "a"}]
    assert [p["text"] for p in sent if "text" in p] == ["Reading."]


async def test_a_stalled_stream_is_retried_after_the_idle_timeout(gemini_server: FakeGeminiServer, tools,
                                                                 root: Path, home: Path) -> None:
    model = GeminiModel("gemini-2.5-pro", "test-key", base_url=gemini_server.base_url, policy=QUICK,
                        idle_timeout_s=0.3)
    registry = ToolRegistry()
    gemini_server.script(stall_reply(1, 3.0), reply(text("Fresh answer.")))
    session = Session(Settings(home=home), registry, model, root, EventBus(), interactive=False)
    events = EventLog(session.bus)
    assert await session.send("go") is TurnEndReason.completed
    await events.settle()
    from gemini_tui.core.ground.events import Retrying, TextDelta

    retries = events.of(Retrying)
    assert len(retries) == 1 and "stalled" in retries[0].reason and retries[0].discard_partial
    assert "".join(e.text for e in events.of(TextDelta)).endswith("Fresh answer.")
    assert len(gemini_server.requests) == 2


def test_the_idle_timeout_is_a_setting(tmp_path: Path) -> None:
    from gemini_tui.core.setup.config import load_settings

    root = tmp_path / "r"
    (root / ".gemini").mkdir(parents=True)
    (root / ".gemini/settings.json").write_text(json.dumps({"model": {"streamIdleTimeout": 12.5,
                                                                      "disableLoopDetection": True},
                                                            "tools": {"disableLLMCorrection": True}}))
    settings = load_settings(root, home=tmp_path / "home", env={})
    assert settings.stream_idle_timeout_s == 12.5
    assert settings.disable_loop_detection and settings.disable_llm_correction
    assert not settings.notices


SAMPLE = [CASES[i] for i in (0, 3, 7, 17, 18, 23)]


@pytest.mark.parametrize("case", SAMPLE, ids=[name for name, _ in SAMPLE])
def test_headless_runs_print_no_traceback(case: tuple[str, Any], gemini_server: FakeGeminiServer, root: Path,
                                          home: Path) -> None:
    name, hostile = case
    (root / "a").write_text("A")
    gemini_server.script(hostile, *[reply(text("Done."))] * 3)
    env = {**os.environ, "GOOGLE_GEMINI_BASE_URL": gemini_server.base_url, "GEMINI_API_KEY": "test-key",
           "GEMINI_CLI_HOME": str(home)}
    done = subprocess.run([*warm_start.command(env, "gemini_tui.cli.main"), "-p", "go"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode in (0, 1), (name, done.stderr)
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout, (name, done.stderr)
    for request in gemini_server.requests:
        _pairs_sent(request.contents)


def test_the_idle_timeout_reaches_a_model_switched_to_later(root: Path, home: Path) -> None:
    from gemini_tui.cli.assemble import build_session

    (home / ".gemini").mkdir()
    (home / ".gemini/settings.json").write_text(json.dumps({"model": {"streamIdleTimeout": 7}}))
    env = {"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"}
    session = build_session(root, home=home, env=env)
    assert session.model.idle_timeout_s == 7
    switched, _ = session.model_factory("gemini-2.5-flash")
    assert switched.idle_timeout_s == 7
