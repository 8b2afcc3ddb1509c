"""Session: GEMINI.md in the system instruction, rich prompts, the approval mode, one prompt at a time."""

from __future__ import annotations

from gemini_tui.core.ground.parts import InlineDataPart, TextPart
from gemini_tui.core.session.scheduler import ApprovalMode
from tests.fakes.gemini_server import error_reply, reply, text


async def test_prompt_with_parts(gemini_server, make_session) -> None:
    session = make_session()
    await session.send([TextPart("what is this?"), InlineDataPart("image/png", "iVBORw0KGgo=")])
    parts = gemini_server.requests[0].contents[0]["parts"]
    assert parts[0] == {"text": "what is this?"}
    blob = parts[1]["inlineData"]
    # google-genai sends nested fields in proto spelling (mime_type); the API accepts both spellings
    assert blob["data"] == "iVBORw0KGgo=" and (blob.get("mimeType") or blob.get("mime_type")) == "image/png"


async def test_approval_mode_is_settable(make_session) -> None:
    session = make_session()
    session.approval_mode = "yolo"  # type: ignore[assignment]
    assert session.approval_mode is ApprovalMode.yolo
    assert session.scheduler.approval_mode is ApprovalMode.yolo
    assert session.model_name == "gemini-2.5-pro" and not session.is_offline


async def test_a_prompt_after_a_failed_one_keeps_roles_alternating(gemini_server, make_session) -> None:
    gemini_server.script(error_reply(400, "bad"), reply(text("Now fine.")))
    session = make_session()
    await session.send("first")
    await session.send("second")
    roles = [c["role"] for c in gemini_server.requests[-1].contents]
    assert roles == ["user"]
    assert gemini_server.requests[-1].contents[0]["parts"] == [{"text": "first"}, {"text": "second"}]
