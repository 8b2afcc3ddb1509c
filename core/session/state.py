"""What the session's parts share: the conversation, its id, where each prompt starts, and where it is saved."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.events import EventBus, Notice
from gemini_tui.core.persistence.checkpoints import Checkpointer
from gemini_tui.core.persistence.recorder import SessionRecorder
from gemini_tui.core.persistence.records import PromptMark
from gemini_tui.core.session.conversation import Conversation


@dataclass
class SessionState:
    """One object the turn loop and its collaborators (autosave, rewind, compression, saved chats) all hold, so
    none of them needs the `Session` itself. `busy` is held while a prompt or a user's tool call runs."""

    root: Path
    bus: EventBus
    conversation: Conversation = field(default_factory=Conversation)
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    prompt_marks: list[PromptMark] = field(default_factory=list)  # every prompt's text and where it starts
    recorder: SessionRecorder | None = None  # autosave's writer (None: sessions are not saved in this run)
    checkpointer: Checkpointer | None = None  # set by the wiring unless general.checkpointing is off
    notices: list[Notice] = field(default_factory=list)  # kept for subscribers that come late
    busy: asyncio.Lock = field(default_factory=asyncio.Lock)
    abort: AbortSignal | None = None  # the running prompt's (or user's call's): what cancel() fires

    @property
    def is_running(self) -> bool:
        return self.busy.locked()

    def notice(self, notice: Notice) -> None:
        self.notices.append(notice)
        self.bus.publish(notice)

    def report(self, message: str, level: str = "warning") -> None:
        self.notice(Notice(message, level))

    def record(self, entry: dict[str, Any]) -> None:
        """One record of the session file (nothing when sessions are not saved)."""
        if self.recorder is not None:
            self.recorder.add(entry)

    def autosave(self, *, end: bool = False) -> None:
        if self.recorder is not None:
            self.recorder.flush(end_answer=end)
