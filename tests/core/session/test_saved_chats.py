"""`/chat save|resume|list`: bookmarks in the saved session, a chat saved by an earlier build, and a failed
resume leaving the session as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.gemini_server import call, reply, text


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
