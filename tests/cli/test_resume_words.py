"""The words at the end of a window of several sessions: each session with a saved conversation, by its first
prompt, with the command that resumes it (from its own folder when that is not the current one); a quiet session
is left out, and a window with one session to resume says nothing more than before."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemini_tui.cli.sessions import how_to_resume
from tests.fakes.scripted_model import ScriptedModel, scripted_session, text


@pytest.mark.parametrize(("talked", "expected"), [
    ((0, 1, 2), 3), ((0, 2), 2), ((1,), 0), ((), 0),
])
async def test_each_saved_session_of_the_window_is_named_with_its_way_back(
        tmp_path: Path, talked: tuple[int, ...], expected: int) -> None:
    home = tmp_path / "home"
    home.mkdir()
    here, elsewhere = tmp_path / "project", tmp_path / "project" / ".gemini" / "worktrees" / "feat"
    elsewhere.mkdir(parents=True)
    roots = [here, elsewhere, here]
    sessions = [scripted_session(root, ScriptedModel().add(text("hi")), home) for root in roots]
    try:
        for index in talked:
            await sessions[index].send(f"prompt of session {index}  with   spaces" + "x" * 50 * (index == 2))
        said = how_to_resume(sessions, here)
    finally:
        for session in sessions:
            await session.close()
    assert len(said) == (expected + 1 if expected else 0)
    if not expected:
        return
    assert said[0] == "This window's sessions are saved; to go on with one:"
    for index, line in zip(talked, said[1:], strict=True):
        session = sessions[index]
        where = f"cd {elsewhere.resolve()} && " if roots[index] == elsewhere else ""
        assert line.endswith(f": {where}gemini-tui --resume {session.session_id}")
        assert line.startswith(f"  prompt of session {index} with spaces")
        assert len(line.split(": ")[0].strip()) <= 40
