"""The turn loop and what it keeps: `Session` (a prompt in, model turns and tool calls out, as events),
the conversation history and its rules, the scheduler (each call's state machine), compression, loop
detection, `@path` mentions and the counters of `/stats`.

Front ends reach it only through `SessionFace` (`face`)."""

from gemini_tui.core.ground.stats import SessionStats
from gemini_tui.core.session.conversation import Conversation
from gemini_tui.core.session.face import SessionFace

__all__ = ["Conversation", "SessionFace", "SessionStats"]
