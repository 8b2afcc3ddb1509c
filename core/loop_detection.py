"""Loop detection: the same tool call over and over, or the same stretch of text repeating in the answer."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from gemini_tui.core.models.base import FunctionCall

CALL_REPEAT_LIMIT = 5
CHUNK_SIZE = 50  # characters compared at a time
CHUNK_REPEAT_LIMIT = 10  # one chunk seen this often, close together, is a loop
FENCE = "```"


@dataclass
class LoopDetector:
    """Fed every call and every text delta of one prompt; says why it stops, once, or returns None."""

    _last_call: str | None = None
    _call_repeats: int = 0
    _text: str = ""
    _scanned: int = 0
    _in_code: bool = False
    _seen: dict[int, list[int]] = field(default_factory=dict)  # hash of a chunk -> where it was seen lately

    def check_call(self, call: FunctionCall) -> str | None:
        key = call.name + json.dumps(call.args, sort_keys=True, default=str)
        self._call_repeats = self._call_repeats + 1 if key == self._last_call else 1
        self._last_call = key
        if self._call_repeats >= CALL_REPEAT_LIMIT:
            return (f"Loop detected: the model called {call.name} with the same arguments {self._call_repeats} "
                    "times in a row. The request was stopped.")
        return None

    def check_text(self, delta: str) -> str | None:
        self._text += delta
        while self._scanned + CHUNK_SIZE <= len(self._text):
            if self._text.startswith(FENCE, self._scanned):
                self._in_code = not self._in_code
                self._scanned += len(FENCE)
                continue
            chunk = self._text[self._scanned:self._scanned + CHUNK_SIZE]
            self._scanned += 1
            # code legitimately repeats lines (tests, tables, similar statements): only prose is compared
            if self._in_code or FENCE in chunk:
                continue
            positions = self._seen.setdefault(hash(chunk), [])
            positions.append(self._scanned)
            del positions[:-CHUNK_REPEAT_LIMIT]
            if len(positions) == CHUNK_REPEAT_LIMIT and (
                    (positions[-1] - positions[0]) / (len(positions) - 1) <= CHUNK_SIZE * 3):
                return "Loop detected: the model kept repeating the same text. The request was stopped."
        return None
