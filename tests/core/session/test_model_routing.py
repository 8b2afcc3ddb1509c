"""general.plan.modelRouting against the fake Gemini server: the model each request names, for every `auto` alias,
the setting on and off, the app and headless, while planning, once a plan is approved and after plan mode again."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.core.ground.confirmation import ConfirmationOutcome, Decision
from gemini_tui.core.ground.events import ConfirmationRequested
from gemini_tui.core.session.session import Session
from tests.core.agents.world import Router, session_on
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

PAIRS = {"auto": ("gemini-2.5-pro", "gemini-2.5-flash"), "auto-gemini-2.5": ("gemini-2.5-pro", "gemini-2.5-flash"),
         "auto-gemini-3": ("gemini-3-pro-preview", "gemini-3-flash-preview")}
CONCRETE = "gemini-2.5-flash"
# the requests of the script below, by what has happened when each is sent
PHASES = ("before plan mode", "asking to plan", "planning", "planning, plan written", "plan approved",
          "next prompt", "asking to plan again", "planning again")
SETTINGS: dict[str, dict[str, Any]] = {"unset": {}, "on": {"general": {"plan": {"modelRouting": True}}},
                                       "off": {"general": {"plan": {"modelRouting": False}}}}


def expected(model: str, setting: str) -> list[str]:
    """Gemini CLI's ApprovalModeStrategy: Pro in plan mode, Flash once a plan was approved (plan mode wins), the
    alias's Pro model otherwise; only for an alias and with the setting on. A concrete name is sent as given."""
    if model not in PAIRS:
        return [model] * len(PHASES)
    pro, flash = PAIRS[model]
    if setting == "off":
        return [pro] * len(PHASES)
    return [pro, pro, pro, pro, flash, flash, flash, pro]


async def drive(session: Session, router: Router, interactive: bool) -> None:
    """Plans, writes the plan, has it approved (the app: the user approves; headless: unasked), goes on, plans
    again."""
    plan = session.plans.path / "plan.md"
    router.script("parent", reply(text("hello")),
                  reply(call("enter_plan_mode", reason="design first")),
                  reply(call("write_file", file_path=str(plan), content="# Plan\n1. do it\n")),
                  reply(call("exit_plan_mode", plan_filename="plan.md")),
                  reply(text("implemented")),
                  reply(text("more")),
                  reply(call("enter_plan_mode", reason="next feature")),
                  reply(text("planning again")))

    async def approve() -> None:
        async for event in session.bus.subscribe():
            if isinstance(event, ConfirmationRequested):
                event.future.set_result(Decision(ConfirmationOutcome.proceed_once))

    listener = asyncio.ensure_future(approve())
    await asyncio.sleep(0)
    try:
        for prompt in ("hi", "plan it", "go on", "plan the next"):
            await session.send(prompt)
    finally:
        listener.cancel()
    assert plan.read_text() == "# Plan\n1. do it\n"
    assert session.approval_mode.value == "plan"
    assert interactive is session.scheduler.interactive


@pytest.mark.parametrize(("model", "setting", "interactive"),
                         list(itertools.product([*PAIRS, CONCRETE], SETTINGS, [True, False])))
async def test_each_request_names_the_model_the_alias_routes_to(root: Path, home: Path, model: str, setting: str,
                                                                  interactive: bool) -> None:
    router = Router()
    with FakeGeminiServer() as server:
        server.responder = router
        session = session_on(server, root, home, settings=SETTINGS[setting], model=model, interactive=interactive)
        await drive(session, router, interactive)
    sent = [request.model for request in router.requests_of("parent")]
    assert dict(zip(PHASES, sent, strict=True)) == dict(zip(PHASES, expected(model, setting), strict=True))


@pytest.mark.parametrize(("alias", "phase"), itertools.product(PAIRS, ["start", "plan mode", "plan approved"]))
def test_the_status_line_shows_the_alias_and_the_model_it_stands_for(root: Path, home: Path, alias: str,
                                                                      phase: str) -> None:
    from gemini_tui.core.approvals.policy import ApprovalMode

    pro, flash = PAIRS[alias]
    with FakeGeminiServer() as server:
        session = session_on(server, root, home, model=alias)
        if phase != "start":
            session.approval_mode = ApprovalMode.plan
        if phase == "plan approved":
            session.plan_approved(session.plans.path / "plan.md")
            session.approval_mode = ApprovalMode.default
    assert session.model_label == f"{alias} → {flash if phase == 'plan approved' else pro}"


@pytest.mark.parametrize("chosen", [CONCRETE, "gemini-3-pro-preview", "auto-gemini-3"])
async def test_a_model_chosen_by_name_replaces_the_alias(root: Path, home: Path, chosen: str) -> None:
    """`/model NAME` after `auto`: a concrete name is sent from then on whatever the mode; another alias routes
    with its own pair."""
    router = Router()
    with FakeGeminiServer() as server:
        server.responder = router
        session = session_on(server, root, home, model="auto")
        session.set_model(chosen)
        await drive(session, router, True)
    sent = [request.model for request in router.requests_of("parent")]
    assert sent == expected(chosen, "on")
    assert session.model_label == (f"{chosen} → {PAIRS[chosen][0]}" if chosen in PAIRS else chosen)
