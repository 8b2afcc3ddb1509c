"""Autosave and resume: the session written as it goes into its store, and a saved one read back into it."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from gemini_tui.core.ground.events import Event
from gemini_tui.core.persistence.recorder import SessionRecorder
from gemini_tui.core.persistence.records import LoadedSession, PromptMark
from gemini_tui.core.persistence.store import SessionStore, SessionSummary
from gemini_tui.core.session.state import SessionState


class Autosave:
    """Owns the session's file: starts it, follows the event bus into it, and loads a saved one in its place."""

    def __init__(self, state: SessionState, model_name: Callable[[], str],
                 on_load: Callable[[], None] = lambda: None) -> None:
        self.state = state
        self.model_name = model_name
        self.on_load = on_load  # a saved conversation took this one's place: the session counts its tokens
        self.store: SessionStore | None = None
        self.resumed: LoadedSession | None = None  # the session file read back, for the front end to redraw

    def enable(self, store: SessionStore) -> None:
        """Saves this session as it goes into `store` (its file appears with the first prompt)."""
        self.store = store
        self.state.bus.tap(self._record_event)
        self.start_recording()

    def start_recording(self) -> None:
        """A new file for the session as it is now (after `/clear`, or a chat continued in a new session)."""
        assert self.store is not None
        state = self.state
        writer = self.store.new_writer(state.session_id, state.root, self.model_name())
        self._set_recorder(SessionRecorder(writer, lambda: state.conversation))

    def restart(self) -> None:
        """A new session id, and a new file when sessions are saved."""
        if self.store is not None:
            self.state.session_id = str(uuid.uuid4())
            self.start_recording()

    def _set_recorder(self, recorder: SessionRecorder) -> None:
        if self.state.recorder is not None:
            self.state.recorder.close()
        self.state.recorder = recorder
        recorder.on_failure = self.state.report

    def _record_event(self, event: Event) -> None:
        if self.state.recorder is not None:
            self.state.recorder.on_event(event)

    def resume(self, which: str = "latest") -> LoadedSession:
        """Continues a saved session (`latest`, its number in `list_sessions()`, or its id): its history is what
        the model sees next, and new turns go on in its file. Raises LookupError or NotASession."""
        if self.store is None:
            raise LookupError("Sessions are not saved in this run, so none can be resumed.")
        if self.state.is_running:
            raise RuntimeError("A prompt is running: wait for it to end (or cancel it) before resuming.")
        loaded = self.store.load(self.store.find(which).path)
        self.load(loaded)
        return loaded

    def load(self, loaded: LoadedSession) -> None:
        assert self.store is not None
        state = self.state
        conversation = state.conversation
        conversation.load(loaded.history)  # made valid: calls cut off by a kill are answered
        state.session_id = loaded.id
        recorder = SessionRecorder(self.store.writer_for(loaded), lambda: state.conversation,
                                   prompts=len(loaded.prompts))
        same = 0
        while same < min(len(loaded.history), len(conversation)) and loaded.history[same] == conversation[same]:
            same += 1
        recorder.sync_saved(conversation[:same])  # what load changed is written with the next turn
        self._set_recorder(recorder)
        self.resumed = loaded
        state.prompt_marks = [PromptMark(str(p.data.get("text", "")), int(p.data.get("position", 0)))
                              for p in loaded.prompts]
        if state.checkpointer is not None:
            state.checkpointer.records = list(loaded.checkpoints)
            state.checkpointer.agent_state = loaded.agent_state
        for problem in loaded.problems:
            state.report(problem)
        self.on_load()

    def list_sessions(self) -> list[SessionSummary]:
        return self.store.summaries() if self.store is not None else []

    def transcript(self) -> LoadedSession | None:
        if self.store is None or self.state.recorder is None:
            return None
        return self.store.load(self.state.recorder.writer.path)

    def delete(self, which: str) -> SessionSummary:
        if self.store is None:
            raise LookupError("Sessions are not saved in this run.")
        return self.store.delete(which, current=self.state.session_id)
