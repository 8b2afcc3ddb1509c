"""An empty model reply (no text, no call) is asked again once, then reported: never a turn that shows nothing."""

from __future__ import annotations

from pathlib import Path

from gemini_tui.core.ground.events import ErrorOccurred, Notice, TurnEndReason
from tests.fakes.scripted_model import ScriptedModel, scripted_session, text, thought


async def run(root: Path, home: Path, model: ScriptedModel) -> tuple[TurnEndReason, list[object]]:
    session = scripted_session(root, model, home)
    events = session.bus.subscribe()
    seen: list[object] = []
    reason = await session.send("hello")
    while True:
        try:
            import asyncio

            seen.append(await asyncio.wait_for(anext(events), 0.05))
        except (TimeoutError, StopAsyncIteration):
            break
    return reason, seen


async def test_one_empty_reply_is_asked_again(root: Path, home: Path) -> None:
    model = ScriptedModel().add().add(text("Here it is."))
    reason, seen = await run(root, home, model)
    assert reason is TurnEndReason.completed and len(model.requests) == 2
    assert any(isinstance(e, Notice) and "empty reply" in e.message for e in seen)
    # the retry is the same request: the history did not gain an empty model turn
    assert [c.role for c in model.requests[1].contents] == [c.role for c in model.requests[0].contents]


async def test_two_empty_replies_end_the_turn_with_an_error(root: Path, home: Path) -> None:
    model = ScriptedModel().add(thought("hmm")).add()  # a thought alone shows nothing either
    reason, seen = await run(root, home, model)
    assert reason is TurnEndReason.error and len(model.requests) == 2
    errors = [e for e in seen if isinstance(e, ErrorOccurred)]
    assert errors and "empty reply twice" in errors[0].message


def test_headless_reports_two_empty_replies_and_fails(gemini_server, root: Path, home: Path) -> None:
    from tests.e2e.test_headless import run_cli
    from tests.fakes.gemini_server import reply

    gemini_server.script(reply(), reply())
    out = run_cli(["-p", "hi"], root, home, gemini_server)
    assert out.returncode != 0 and "empty reply twice" in out.stderr
    gemini_server.script(reply(), reply(text_part("Second time lucky.")))
    out = run_cli(["-p", "hi"], root, home, gemini_server)
    assert out.returncode == 0 and out.stdout == "Second time lucky.\n"


def text_part(value: str) -> dict[str, object]:
    from tests.fakes.gemini_server import text as server_text

    return server_text(value)
