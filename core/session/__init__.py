"""The turn loop and what it keeps: `Session` (a prompt in, model turns and tool calls out, as events),
the conversation history and its rules, the scheduler (each call's state machine), compression, loop
detection, `@path` mentions and the counters of `/stats`.

Front ends reach it only through `SessionFace` (`face`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemini_tui.core.ground.lazy_face import lazy_face

if TYPE_CHECKING:
    from gemini_tui.core.ground.stats import SessionStats
    from gemini_tui.core.session.conversation import Conversation
    from gemini_tui.core.session.face import SessionFace

__all__ = ["Conversation", "SessionFace", "SessionStats"]

__getattr__ = lazy_face(__name__, {
    "gemini_tui.core.session.conversation": ("Conversation",),
    "gemini_tui.core.session.face": ("SessionFace",),
    "gemini_tui.core.ground.stats": ("SessionStats",),
})
