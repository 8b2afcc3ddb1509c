"""Session: saved chats, clear, GEMINI.md in the system instruction, rich prompts, one prompt at a time."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemini_tui.core.ground.parts import InlineDataPart, TextPart
from gemini_tui.core.session.scheduler import ApprovalMode
from tests.fakes.gemini_server import call, error_reply, reply, text


async def test_save_resume_list_chats(gemini_server, make_session, root: Path, home: Path) -> None:
    (root / "a").write_text("A")
    gemini_server.script(reply(text("Reading."), call("read_note", name="a")), reply(text("A.")))
    session = make_session()
    await session.send("read a")
    path = session.chats.save("my work")  # a bookmark in the autosaved session file
    assert path.parent.name == "chats" and path.parent.parent.parent == home / ".gemini" / "tmp"
    saved = list(session.history)
    session.clear()
    assert session.history == []
    assert session.chats.list() == ["my work"]
    assert session.chats.resume("my work") == 4
    assert session.history == saved
    gemini_server.script(reply(text("Still here.")))
    await session.send("and now?")
    sent = gemini_server.requests[-1].contents
    assert len(sent) == 5 and sent[2]["parts"][0]["functionResponse"]["response"] == {"output": "A"}
    with pytest.raises(FileNotFoundError, match="No saved chat named 'nope'"):
        session.chats.resume("nope")


async def test_memory_goes_into_the_system_instruction(gemini_server, make_session, root: Path,
                                                       home: Path) -> None:
    (home / ".gemini").mkdir()
    (home / ".gemini/GEMINI.md").write_text("Always answer in French.")
    (root / "GEMINI.md").write_text("This project uses tabs.")
    session = make_session()
    await session.send("hi")
    system = gemini_server.requests[0].body["systemInstruction"]["parts"][0]["text"]
    assert str(root) in system
    assert system.index("Always answer in French.") < system.index("This project uses tabs.")
    (root / "GEMINI.md").write_text("This project uses spaces.")
    assert "spaces" in session.refresh_memory().text
    await session.send("again")
    assert "spaces" in gemini_server.requests[1].body["systemInstruction"]["parts"][0]["text"]


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


async def test_a_chat_saved_by_an_earlier_build_still_resumes(gemini_server, make_session, root: Path,
                                                              home: Path) -> None:
    """Before the session store, `/chat save` wrote one JSON file of contents per tag beside the chats folder."""
    import hashlib
    import json

    project = home / ".gemini" / "tmp" / hashlib.sha256(str(root).encode()).hexdigest()[:16]
    project.mkdir(parents=True)
    old = [{"role": "user", "parts": [{"text": "what is in notes?"}]},
           {"role": "model", "parts": [{"text": "The old answer."}]}]
    (project / "checkpoint-my_old_work.json").write_text(json.dumps(old))
    session = make_session()
    assert "my_old_work" in session.chats.list()
    assert session.chats.resume("my old work") == 2  # the tag is spelled as the user typed it then
    gemini_server.script(reply(text("Continuing.")))
    await session.send("go on")
    sent = gemini_server.requests[-1].contents
    assert [c["parts"][0]["text"] for c in sent] == ["what is in notes?", "The old answer.", "go on"]
    assert (project / "checkpoint-my_old_work.json").read_text() == json.dumps(old)  # left as it was
    saved = session.saved.transcript()  # and the continued chat is autosaved like any session
    assert saved is not None and len(saved.history) == 4
    (project / "checkpoint-broken.json").write_text("{not json")
    with pytest.raises(ValueError, match="cannot be read"):
        session.chats.resume("broken")
