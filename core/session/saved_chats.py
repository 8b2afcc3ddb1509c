"""`/chat save|resume|list`: named bookmarks in the saved session, and chats saved by earlier builds."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

from gemini_tui.core.ground.content import contents_from_json
from gemini_tui.core.session.autosave import Autosave
from gemini_tui.core.session.state import SessionState


class SavedChats:
    """Bookmarks are records of the session file; resuming one continues it in a new session."""

    def __init__(self, state: SessionState, autosave: Autosave) -> None:
        self.state = state
        self.autosave = autosave

    def save(self, tag: str) -> Path:
        """`/chat save <tag>`: a named bookmark at this point of the saved session; returns its file."""
        tag = tag.strip()
        if not tag:
            raise ValueError("A bookmark needs a name: /chat save <tag>.")
        recorder = self.state.recorder
        if recorder is None:
            raise LookupError("Sessions are not saved in this run, so there is nothing to bookmark.")
        recorder.add({"kind": "bookmark", "tag": tag, "at": time.time()})
        recorder.flush(end_answer=True)
        if recorder.failed:
            raise OSError(recorder.failed)
        return recorder.writer.path

    def resume(self, tag: str) -> int:
        """`/chat resume <tag>`: continues from the bookmark in a new session (the bookmarked one stays as it
        was); returns the number of history entries loaded. A failed resume leaves the session as it was."""
        resumed, self.autosave.resumed = self.autosave.resumed, None  # a legacy chat has nothing to count from
        try:
            count = self._resume(tag)
        except BaseException:
            self.autosave.resumed = resumed
            raise
        if self.autosave.resumed is None:  # a bookmark's load counted already; a legacy chat starts from none
            self.autosave.on_load()
        return count

    def _resume(self, tag: str) -> int:
        store = self.autosave.store
        if store is None:
            raise LookupError("Sessions are not saved in this run.")
        if self.state.is_running:
            raise RuntimeError("A prompt is running: wait for it to end (or cancel it) first.")
        conversation = self.state.conversation
        found = store.bookmarks().get(tag.strip())
        if found is not None:
            self.autosave.load(store.fork(found, str(uuid.uuid4())))
            return len(conversation)
        legacy = store.project / f"checkpoint-{legacy_tag(tag)}.json"
        if not legacy.is_file():
            raise FileNotFoundError(f"No saved chat named {tag!r}. Saved: {', '.join(self.list()) or 'none'}.")
        # a chat saved by an earlier build (one JSON file of contents): continued in a new session file
        try:
            history = contents_from_json(json.loads(legacy.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
            raise ValueError(f"The saved chat {legacy} cannot be read ({exc}); the file is left as it is.") from None
        self.state.session_id = str(uuid.uuid4())
        conversation.load(history)
        self.autosave.start_recording()
        return len(conversation)

    def list(self) -> list[str]:
        store = self.autosave.store
        if store is None:
            return []
        legacy = sorted(path.stem.removeprefix("checkpoint-") for path in store.project.glob("checkpoint-*.json"))
        return list(dict.fromkeys([*store.bookmarks(), *legacy]))


def legacy_tag(tag: str) -> str:
    """How builds before the session store named a `/chat save` file."""
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in tag.strip()) or "default"
