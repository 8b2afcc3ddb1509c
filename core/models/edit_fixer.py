"""Model-assisted edit correction (seed 002): when `replace` finds no unique place for old_string even after its
deterministic ladder, one bounded, non-streamed request asks the session's model for the corrected search text.

Tools get the small `EditFixer` callable, never the model client: `replace` decides whether an answer is safe
to use (it must match exactly the expected number of places and stay close to what the model first sent)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from gemini_tui.core.ground.events import Usage
from gemini_tui.core.ground.stats import SessionStats

log = logging.getLogger(__name__)
FIX_TIMEOUT_S = 8.0

FIX_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "search": {"type": "string", "description": "The exact text of the file to replace, copied from it."},
        "replace": {"type": "string", "description": "What replaces it."},
        "explanation": {"type": "string", "description": "One line: what was wrong with old_string."},
    },
    "required": ["search", "replace", "explanation"],
}

_SYSTEM = (
    "You correct failed text edits. A tool tried to replace old_string with new_string in a file, and old_string "
    "did not match the file exactly. Find the text in the file region that old_string was meant to match, and "
    "return it exactly as the file has it (every space, tab, quote and blank line) as `search`. Return as "
    "`replace` the text that should replace it: new_string, corrected the same way only where the correction "
    "changes what it replaces. If the region does not contain what old_string meant, return an empty search. "
    "Answer with JSON only."
)


@dataclass(frozen=True)
class EditFixRequest:
    file_path: str
    old_string: str
    new_string: str
    region: str  # the part of the file closest to old_string (or the whole file when it is small)
    problem: str  # why the ladder failed: no occurrence, or how many


@dataclass(frozen=True)
class EditFix:
    search: str
    replace: str
    explanation: str


class EditFixer(Protocol):
    async def __call__(self, request: EditFixRequest) -> EditFix | None: ...


def fix_prompt(request: EditFixRequest) -> str:
    return (f"File: {request.file_path}\nProblem: {request.problem}\n\n"
            f"old_string:\n<<<\n{request.old_string}\n>>>\n\nnew_string:\n<<<\n{request.new_string}\n>>>\n\n"
            f"File region:\n<<<\n{request.region}\n>>>\n")


class ModelEditFixer:
    """Asks `model()` (the session's current model, which has `generate_json`); its tokens and latency go into
    `stats` like any request. Any failure (timeout, error, malformed answer) is no fix."""

    def __init__(self, model: Callable[[], Any], stats: SessionStats, timeout_s: float = FIX_TIMEOUT_S) -> None:
        self.model = model
        self.stats = stats
        self.timeout_s = timeout_s

    async def __call__(self, request: EditFixRequest) -> EditFix | None:
        model = self.model()
        generate = getattr(model, "generate_json", None)
        if generate is None or getattr(model, "is_offline", False):
            return None
        started = time.monotonic()
        usage: Usage | None = None
        try:
            answer, usage = await generate(fix_prompt(request), FIX_SCHEMA, system_instruction=_SYSTEM,
                                           timeout_s=self.timeout_s)
        except Exception as exc:  # a failed correction is only a failed correction
            log.info("edit correction request failed: %s: %s", type(exc).__name__, exc)
            self.stats.record_request(model.model_name, int((time.monotonic() - started) * 1000),
                                      getattr(exc, "kind", "timeout" if isinstance(exc, TimeoutError) else "error"))
            return None
        self.stats.record_request(model.model_name, int((time.monotonic() - started) * 1000))
        if usage is not None:
            self.stats.model(model.model_name).tokens.add(usage)
        if not isinstance(answer, dict):
            return None
        search, replace, why = answer.get("search"), answer.get("replace"), answer.get("explanation", "")
        if not isinstance(search, str) or not isinstance(replace, str) or not search:
            return None
        return EditFix(search, replace, " ".join(str(why).split())[:200])
