"""What outlives the process: saved sessions (`store`, one append-only JSONL file each, written by the `recorder`
from `records`), checkpoints of files before an edit (`checkpoints`, kept in a shadow git repository by
`shadow_repo`), private files written atomically, and how a saved session is listed.

Imports only the ground floor: the session decides what to record; this room decides how it is kept."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemini_tui.core.ground.lazy_face import lazy_face

if TYPE_CHECKING:
    from gemini_tui.core.persistence.checkpoints import Checkpointer
    from gemini_tui.core.persistence.recorder import SessionRecorder
    from gemini_tui.core.persistence.shadow_repo import ShadowRepo
    from gemini_tui.core.persistence.store import SessionStore, SessionSummary

__all__ = ["Checkpointer", "SessionRecorder", "SessionStore", "SessionSummary", "ShadowRepo"]

__getattr__ = lazy_face(__name__, {
    "gemini_tui.core.persistence.checkpoints": ("Checkpointer",),
    "gemini_tui.core.persistence.recorder": ("SessionRecorder",),
    "gemini_tui.core.persistence.store": ("SessionStore", "SessionSummary"),
    "gemini_tui.core.persistence.shadow_repo": ("ShadowRepo",),
})
