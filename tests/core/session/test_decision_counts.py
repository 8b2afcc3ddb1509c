"""/stats counts exactly one decision per decided model call: generated turns through the real Session, its
scheduler, the real tools and the google-genai client against the fake Gemini server, answered as planned;
each call's decision and the session's totals must match the oracle in tests/core/decision_mix.py, and the
user's own calls (`!command`, `/memory add`, `@path`) are not counted at all."""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.cli.assemble import build_session
from gemini_tui.core.approvals.trust import TRUST_ENV
from gemini_tui.core.ground.confirmation import ConfirmationOutcome, Decision
from gemini_tui.core.ground.events import CallFinished, CallState, CallStateChanged, ConfirmationRequested
from gemini_tui.core.models.gemini import GeminiModel
from gemini_tui.core.session.session import Session
from tests.core.conftest import FAST_RETRIES
from tests.core.decision_mix import EXCLUDED, Planned, Turn, by_key, decide, generate, key_of, replies_for
from tests.fakes.gemini_server import FakeGeminiServer
from tests.sweep import cases

ANSWERS = {"once": ConfirmationOutcome.proceed_once, "always": ConfirmationOutcome.proceed_always,
           "reject": ConfirmationOutcome.cancel}


def gemini_session(root: Path, home: Path, server: FakeGeminiServer) -> Session:
    """The real session the CLI builds (settings, tools, policy), its model the real client on the fake server."""
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini/settings.json").write_text(json.dumps({"tools": {"exclude": [EXCLUDED]}}))
    (root / "present.txt").write_text("".join(f"line {i}\n" for i in range(50)))
    model = GeminiModel("gemini-2.5-pro", "test-key", base_url=server.base_url, policy=FAST_RETRIES)
    env = {TRUST_ENV: os.environ[TRUST_ENV]} if TRUST_ENV in os.environ else {}
    return build_session(root, home=home, env=env, model_factory=lambda _name, _root, _env: (model, None))


class Answerer:
    """Answers each confirmation as planned (the user's own calls: yes); cancels the turn where planned."""

    def __init__(self, session: Session, plan: dict[int, Planned]) -> None:
        self.session = session
        self.plan = plan
        self.finished: list[CallFinished] = []
        self.asked: set[int] = set()
        self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        async for event in self.session.bus.subscribe():
            if isinstance(event, CallFinished):
                self.finished.append(event)
            elif isinstance(event, ConfirmationRequested):
                self._answer(event)
            elif (isinstance(event, CallStateChanged) and event.call.state is CallState.executing
                  and event.call.requested_by == "model"):
                planned = self.plan.get(key_of(event.call.args) or -1)
                if planned is not None and planned.kind == "long_shell":
                    asyncio.get_running_loop().call_later(0.2, self.session.cancel)  # cancelled while it runs

    def _answer(self, event: ConfirmationRequested) -> None:
        if event.call.requested_by != "model":
            event.future.set_result(Decision(ConfirmationOutcome.proceed_once))
            return
        key = key_of(event.call.args)
        assert key is not None, event.call.args
        self.asked.add(key)
        planned = self.plan[key]
        if planned.answer == "abort":
            self.session.cancel()  # nobody answers: the turn is cancelled while the call waits
        elif planned.answer == "modify":
            event.future.set_result(Decision(ConfirmationOutcome.modify, new_content=f"changed K{key}X\n"))
        else:
            event.future.set_result(Decision(ANSWERS[planned.answer]))


async def run_plan(session: Session, server: FakeGeminiServer, plan: list[Turn], root: Path) -> Answerer:
    decide(plan)  # which turns end cancelled: those get no closing answer scripted
    answerer = Answerer(session, by_key(plan))
    for n, turn in enumerate(plan):
        session.scheduler.approval_mode = turn.mode
        mention = False
        for run in turn.user_runs:
            if run == "shell":
                assert (await session.run_shell(f"echo user-{n}")).ran
            elif run == "memory":
                await session.add_memory(f"fact number {n}")
            else:
                mention = True
        server.script(*replies_for(turn, root))
        await session.send(f"turn {n} @present.txt" if mention else f"turn {n}")
        assert server.pending == 0, f"turn {n}: the model was not asked as scripted"
    await asyncio.sleep(0.05)
    return answerer


def check(plan: list[Turn], answerer: Answerer, session: Session) -> Counter[str]:
    expected = decide(plan)
    planned = by_key(plan)
    model_calls = [e for e in answerer.finished if e.call.requested_by == "model"]
    assert len(model_calls) == len(planned)
    for event in model_calls:
        call = planned[key_of(event.call.args)]  # type: ignore[index]
        assert event.call.outcome == call.expected, (call, event.call.state, event.result.llm_content)
    assert answerer.asked == {c.key for c in planned.values() if c.asked}
    stats = session.stats
    totals = {d.value: n for d, n in stats.decisions().items()}
    assert totals == expected
    decided = sum(1 for e in model_calls if e.call.outcome is not None)
    assert sum(totals.values()) == decided
    assert stats.total_calls == len(planned)  # the user's own calls are not in the tool statistics
    per_tool: dict[str, Counter[str]] = {}
    for event in model_calls:
        if event.call.outcome is not None:
            per_tool.setdefault(event.call.name, Counter())[event.call.outcome] += 1
    for name, tool in stats.tools.items():
        assert {d.value: n for d, n in tool.decisions.items() if n} == dict(per_tool.get(name, {}))
    return Counter(c.expected or "none" for c in planned.values())


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_one_decision_per_decided_call_in_generated_turns(seed: int, root: Path, home: Path,
                                                                gemini_server: FakeGeminiServer) -> None:
    plan = generate(random.Random(seed), turns=cases(45))
    session = gemini_session(root, home, gemini_server)
    answerer = await run_plan(session, gemini_server, plan, root)
    seen = check(plan, answerer, session)
    # the mix covered every outcome, so each rule above was exercised
    assert all(seen[k] for k in ("accept", "reject", "modify", "auto_accept", "none")), seen


async def test_five_calls_user_and_model(root: Path, home: Path, gemini_server: FakeGeminiServer) -> None:
    """The report: an `@path` read, then four model calls (a read, an approved edit, a yolo... here a rejected
    command and an unknown tool) showed five decisions for four calls. Now: three decisions, four calls."""
    plan = [Turn("default", [Planned("read", 0, "once"), Planned("write", 1, "once"), Planned("shell", 2, "reject"),
                             Planned("unknown", 3, "once")], ["mention"])]
    session = gemini_session(root, home, gemini_server)
    answerer = await run_plan(session, gemini_server, plan, root)
    check(plan, answerer, session)
    totals: dict[str, Any] = {d.value: n for d, n in session.stats.decisions().items()}
    assert totals == {"accept": 1, "reject": 1, "modify": 0, "auto_accept": 1}
    assert session.stats.total_calls == 4
