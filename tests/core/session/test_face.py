"""The Session's face: `@path` mentions read in the core (so headless has them), and the history changed only
through the Conversation (the face's `!command` and `/memory add` are in test_user_calls)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from gemini_tui.cli.headless import HeadlessPrinter
from gemini_tui.core.ground.events import (
    ErrorOccurred,
)
from gemini_tui.core.ground.parts import TextPart
from gemini_tui.core.session.conversation import Conversation
from gemini_tui.core.session.face import SessionFace
from tests.core.conftest import EventLog
from tests.fakes.scripted_model import ScriptedModel, scripted_session, text


def sent_text(model: ScriptedModel, request: int = 0) -> str:
    return "".join(p.text for c in model.requests[request].contents for p in c.parts if isinstance(p, TextPart))


async def test_headless_prompt_with_a_mention_sends_the_file(root: Path, home: Path) -> None:
    (root / "src").mkdir()
    (root / "src/x.py").write_text("def answer():\n    return 42\n")
    model = ScriptedModel().add(text("It returns 42."))
    session: SessionFace = scripted_session(root, model, home, interactive=False)
    out, err = io.StringIO(), io.StringIO()
    code = await HeadlessPrinter("stream-json", out, err).run(session, "explain @src/x.py")
    assert code == 0, err.getvalue()
    sent = sent_text(model)
    assert sent.startswith("explain @src/x.py") and "return 42" in sent
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    # the read is a call like any other, run by the scheduler
    assert [line["tool_name"] for line in lines if line["type"] == "tool_use"] == ["read_many_files"]
    assert lines[-1]["status"] == "success"


async def test_a_mention_that_cannot_be_read_ends_the_turn_and_sends_nothing(root: Path, home: Path) -> None:
    (home / ".gemini").mkdir()
    (home / ".gemini/settings.json").write_text(json.dumps({"tools": {"exclude": ["read_many_files"]}}))
    model = ScriptedModel()
    session = scripted_session(root, model, home, interactive=False)
    log = EventLog(session.bus)
    reason = await session.send("look at @notes.txt")
    await log.settle()
    assert reason.value == "error"
    assert model.requests == [] and len(session.history) == 0
    assert [e.kind for e in log.of(ErrorOccurred)] == ["mention"]


async def test_history_is_the_conversation_and_saves_through_it(root: Path, home: Path) -> None:
    session = scripted_session(root, ScriptedModel().add(text("hi")), home)
    await session.send("hello")
    assert isinstance(session.history, Conversation)
    assert not hasattr(session.history, "append")  # changes go through the Conversation's methods only
    session.chats.save("t")
    session.clear()
    assert session.chats.resume("t") == 2 and session.history.texts() == [("user", "hello"), ("model", "hi")]
