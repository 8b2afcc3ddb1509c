"""The context-memory part: GEMINI.md memory goes into the system instruction of every request."""

from __future__ import annotations

from pathlib import Path


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
