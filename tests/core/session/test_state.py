"""What the session's parts share: notices kept for late subscribers, records and saves that are nothing when
sessions are not saved, and `is_running` following the busy lock."""

from __future__ import annotations

from pathlib import Path

from gemini_tui.core.ground.events import EventBus, Notice
from gemini_tui.core.session.state import SessionState


async def test_notices_are_published_and_kept(tmp_path: Path) -> None:
    state = SessionState(tmp_path, EventBus())
    seen: list[object] = []
    state.bus.tap(seen.append)
    state.report("settings problem")
    state.notice(Notice("offline", "info"))
    assert state.notices == [Notice("settings problem", "warning"), Notice("offline", "info")] == seen


async def test_without_a_recorder_records_and_saves_are_nothing(tmp_path: Path) -> None:
    state = SessionState(tmp_path, EventBus())
    state.record({"kind": "rewind", "prompt": 0})
    state.autosave(end=True)
    assert state.recorder is None and list(tmp_path.iterdir()) == []


async def test_is_running_follows_the_busy_lock(tmp_path: Path) -> None:
    state = SessionState(tmp_path, EventBus())
    assert not state.is_running and state.abort is None
    async with state.busy:
        assert state.is_running
    assert not state.is_running
    assert SessionState(tmp_path, EventBus()).session_id != state.session_id  # every session its own id
