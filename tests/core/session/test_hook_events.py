"""Every hook event through a real Session: what each receives and what its answer does (tool selection,
SessionEnd, PreCompress, Notification), and that a hung or crashing hook neither hangs nor breaks the session."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from gemini_tui.core.ground.confirmation import ConfirmationOutcome, Decision
from gemini_tui.core.ground.events import ConfirmationRequested, Notice
from gemini_tui.core.ground.model_api import FunctionCalling
from gemini_tui.core.session.session import Session
from tests.fakes.scripted_model import ScriptedModel, call, scripted_session, text

RECORD = ("import json, sys, pathlib; d = json.load(sys.stdin); "
          "p = pathlib.Path(sys.argv[1]); p.write_text(p.read_text() + json.dumps(d) + '\\n' "
          "if p.exists() else json.dumps(d) + '\\n'); print(sys.argv[2] if len(sys.argv) > 2 else '{}')")


def recorder(tmp_path: Path, answer: dict[str, Any] | None = None) -> tuple[str, Path]:
    script = tmp_path / "record.py"
    script.write_text(RECORD)
    log = tmp_path / "hook.log"
    reply = json.dumps(json.dumps(answer or {}))
    return f"{sys.executable} {script} {log} {reply}", log


def seen(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def collect_notices(session: Session) -> tuple[list[str], asyncio.Future[None]]:
    """The messages of the notices the session publishes from now on, and the listener to cancel at the end."""
    notices: list[str] = []
    events = session.bus.subscribe()

    async def listen() -> None:
        async for event in events:
            if isinstance(event, Notice):
                notices.append(event.message)

    return notices, asyncio.ensure_future(listen())


def configure(home: Path, hooks: dict[str, Any], **more: Any) -> None:
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({"hooks": hooks, **more}))


def group(command: str, matcher: str = "", timeout: int = 5000) -> list[dict[str, Any]]:
    return [{"matcher": matcher, "hooks": [{"type": "command", "command": command, "timeout": timeout}]}]


async def test_before_tool_selection_none_forbids_calls(root: Path, home: Path, tmp_path: Path) -> None:
    command, log = recorder(tmp_path, {"hookSpecificOutput": {"toolConfig": {"mode": "NONE"}}})
    configure(home, {"BeforeToolSelection": group(command)})
    model = ScriptedModel().add(text("no tools"))
    session = scripted_session(root, model, home)
    await session.send("hi")
    await session.close()
    assert model.requests[0].function_calling == FunctionCalling("NONE")  # as Gemini CLI: declared, not callable
    [event] = seen(log)
    assert event["hook_event_name"] == "BeforeToolSelection" and event["llm_request"]["messages"][-1] == {
        "role": "user", "content": "hi"}


async def test_session_end_and_pre_compress_receive_their_words(root: Path, home: Path, tmp_path: Path) -> None:
    command, log = recorder(tmp_path, {"systemMessage": "noted"})
    configure(home, {"SessionEnd": group(command, "exit"), "PreCompress": group(command, "manual")})
    model = ScriptedModel()
    for index in range(6):
        model.add(text(f"answer {index} " + "words " * 400))
    model.add(text("a summary of it all"))
    session = scripted_session(root, model, home)
    notices, listener = collect_notices(session)
    for index in range(6):
        await session.send(f"question {index}")
    await session.compress()
    await session.close()
    await asyncio.sleep(0)
    listener.cancel()
    names = [(e["hook_event_name"], e.get("trigger") or e.get("reason")) for e in seen(log)]
    assert names == [("PreCompress", "manual"), ("SessionEnd", "exit")]
    assert "noted" in notices  # a systemMessage is shown


async def test_notification_on_a_permission_request(root: Path, home: Path, tmp_path: Path) -> None:
    command, log = recorder(tmp_path)
    configure(home, {"Notification": group(command, "ToolPermission")})
    model = ScriptedModel().add([call("write_file", file_path=str(root / "a.txt"), content="x")]).add(text("ok"))
    session = scripted_session(root, model, home, interactive=True)
    events = session.bus.subscribe()

    async def answer() -> None:
        async for event in events:
            if isinstance(event, ConfirmationRequested):
                await asyncio.sleep(0.5)  # the hook runs beside the question, never before it
                event.future.set_result(Decision(ConfirmationOutcome.proceed_once))

    listener = asyncio.ensure_future(answer())
    await session.send("write")
    listener.cancel()
    await session.close()
    [event] = seen(log)
    assert event["notification_type"] == "ToolPermission" and event["details"]["tool_name"] == "write_file"


async def test_a_hung_or_crashing_hook_cannot_hang_or_break_the_session(root: Path, home: Path,
                                                                       tmp_path: Path) -> None:
    configure(home, {"BeforeAgent": group("sleep 30", timeout=300) + group("exit 1"),
                     "AfterModel": group("kill -SEGV $$"), "SessionEnd": group("sleep 30", timeout=300)})
    model = ScriptedModel().add(text("still here"))
    session = scripted_session(root, model, home)
    notices, listener = collect_notices(session)
    started = time.monotonic()
    reason = await session.send("hello")
    await session.close()
    listener.cancel()
    assert time.monotonic() - started < 10
    assert str(reason) == "completed" and model.requests
    assert any("did not answer within 0.3 s" in n for n in notices), notices
    assert any("failed (exit code 1)" in n for n in notices), notices
