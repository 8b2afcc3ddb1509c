"""Autosave: turns a session's events and history into records, written at every turn boundary."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from gemini_tui.core.ground.content import contents_to_json
from gemini_tui.core.ground.events import CallFinished, ErrorOccurred, Event, TextDelta, TurnStarted, UsageUpdated
from gemini_tui.core.ground.model_api import Content
from gemini_tui.core.persistence.records import display_to_json, entry_digest, prompt_position
from gemini_tui.core.persistence.store import SessionWriter

log = logging.getLogger(__name__)


class SessionRecorder:
    """Listens to the bus (synchronously, as events are published) for what the user saw, and to the history
    for what the model sees; `flush()` writes both as one append. A write that fails is reported once and
    autosave stops; the session itself goes on."""

    def __init__(self, writer: SessionWriter, history: Callable[[], Sequence[Content]], *, prompts: int = 0) -> None:
        self.writer = writer
        self._history = history
        self._pending: list[dict[str, Any]] = []
        self._answer: list[str] = []
        # the entries the file already holds; the conversation replaces an entry when it changes (never edits it in
        # place), so the next splice starts at the first entry that is not the very object saved
        self._saved: list[Content] = []
        self.prompts = prompts  # prompts recorded so far (checkpoints and rewinds refer to them by number)
        self.failed: str | None = None
        self.on_failure: Callable[[str], None] | None = None

    def sync_saved(self, history: Sequence[Content]) -> None:
        """The history as the file holds it (after a resume)."""
        self._saved = list(history)

    # -- events ----------------------------------------------------------------------------------------------------
    def on_event(self, event: Event) -> None:
        match event:
            case TurnStarted(prompt=prompt):
                self._end_answer()
                self._pending.append({"kind": "prompt", "text": prompt, "at": time.time(),
                                      "position": prompt_position(self._history())})
                self.prompts += 1
            case TextDelta(text=text):
                self._answer.append(text)
            case CallFinished(call=call, result=result, duration_ms=duration_ms):
                self._end_answer()
                self._pending.append({
                    "kind": "call", "call_id": call.call_id, "name": call.name, "args": call.args,
                    "state": call.state.value, "description": call.description,
                    "display_name": call.display_name, "started_at": call.started_at, "ended_at": call.ended_at,
                    "duration_ms": duration_ms, "display": display_to_json(result.return_display),
                    "error": None if result.error is None else {"kind": result.error.kind.value,
                                                                "message": result.error.message},
                    # a subagent's call: which agent, under which invoke_agent call (a resume groups them again)
                    **({"agent": call.agent, "parent_call_id": call.parent_call_id} if call.agent else {}),
                })
            case UsageUpdated(model=model, usage=usage) if usage.total_tokens or usage.prompt_tokens:
                # what the request used, as the model counted it: a resume counts on from these (the context's
                # share from the last one), as Gemini CLI does from its saved messages' tokens
                self._pending.append({"kind": "usage", "model": model, "prompt": usage.prompt_tokens,
                                      "candidates": usage.candidates_tokens, "cached": usage.cached_tokens,
                                      "thoughts": usage.thoughts_tokens, "total": usage.total_tokens})
            case ErrorOccurred(message=message, kind=kind):
                self._end_answer()
                self._pending.append({"kind": "notice", "message": f"✗ {message}", "level": "error",
                                      "error_kind": kind})
            case _:
                pass

    def _end_answer(self) -> None:
        if self._answer:
            self._pending.append({"kind": "answer", "text": "".join(self._answer)})
            self._answer = []

    # -- records the session adds itself ------------------------------------------------------------------------------
    def add(self, record: dict[str, Any]) -> None:
        self._end_answer()
        self._pending.append(record)

    # -- writing ---------------------------------------------------------------------------------------------------
    def flush(self, *, end_answer: bool = False) -> None:
        """Writes what happened since the last flush: the transcript records, then the history splice."""
        if end_answer:
            self._end_answer()
        if self.failed is not None:
            return
        history = self._history()
        start = self._splice_start(history)
        records = self._pending
        if start is not None:
            splice: dict[str, Any] = {"kind": "history", "from": start, "contents": contents_to_json(history[start:])}
            if start:
                splice["after"] = entry_digest(history[start - 1])
            records = [*records, splice]
        if not records:
            return
        try:
            self.writer.append(records)
        except OSError as exc:
            self.failed = f"Autosave stopped: {self.writer.path} could not be written ({exc.strerror or exc})."
            log.warning(self.failed)
            if self.on_failure is not None:
                self.on_failure(self.failed)
            return
        self._pending = []
        self._saved = list(history)

    def _splice_start(self, history: Sequence[Content]) -> int | None:
        """The first index where `history` differs from what was saved, or None when nothing changed."""
        start = 0
        limit = min(len(history), len(self._saved))
        while start < limit and history[start] is self._saved[start]:
            start += 1
        if start == len(history) == len(self._saved):
            return None
        return start

    def close(self) -> None:
        self.writer.close()
