"""Loop detection: the same tool call over and over, or a whole stretch of prose repeating back to back.

Text is read line by line as Markdown. Lines that legitimately repeat their shape are not prose: fenced code,
table rows, list items, headings, blockquotes and dividers each reset the prose being watched (so a long table,
a list of 200 paths or a 60-character `=====` line never counts). Prose is a loop only when its tail is one
period (16 to 900 characters) repeated back to back: 6 times for a period under 40 characters, 4 under 150,
3 under 500, 2 above; every one of those spans at most 1,800 characters. Similar sentences that differ anywhere
(file names, numbers) never form a period."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from gemini_tui.core.ground.model_api import FunctionCall

CALL_REPEAT_LIMIT = 5
MIN_PERIOD = 16
MAX_PERIOD = 900
WINDOW = 2048  # the prose tail kept: every confirmed loop fits in it
_KEY = 16  # the tail's last characters, looked up earlier in the window to find candidate periods

# a line that starts one of these is Markdown structure, not prose
_STRUCTURE = re.compile(
    r"\s*(?:"
    r"```|~~~"  # fence
    r"|\|"  # table row
    r"|[-*+]\s|[-*+]$"  # bullet item
    r"|\d{1,9}[.)](?:\s|$)"  # numbered item
    r"|#{1,6}(?:\s|$)"  # heading
    r"|>"  # blockquote
    r"|([-=*_~])\s*(?:\1\s*){2,}$"  # divider or setext underline: ---, ===, ***, ___
    r")")
_FENCE = re.compile(r"\s*(```|~~~)")


def copies_needed(period: int) -> int:
    if period < 40:
        return 6
    if period < 150:
        return 4
    if period < 500:
        return 3
    return 2


@dataclass
class LoopDetector:
    """Fed every call and every text delta of one prompt; says why it stops, once, or returns None.
    `enabled=False` (model.disableLoopDetection) watches nothing; `text_enabled=False` watches calls only."""

    enabled: bool = True
    text_enabled: bool = True
    _last_call: str | None = None
    _call_repeats: int = 0
    _line: str = ""  # the current, unfinished line
    _prose: str = ""  # finished prose lines since the last structure line (the last WINDOW characters)
    _in_fence: bool = False

    def check_call(self, call: FunctionCall) -> str | None:
        if not self.enabled:
            return None
        key = call.name + json.dumps(call.args, sort_keys=True, default=str)
        self._call_repeats = self._call_repeats + 1 if key == self._last_call else 1
        self._last_call = key
        if self._call_repeats >= CALL_REPEAT_LIMIT:
            return (f"Loop detected: the model called {call.name} with the same arguments {self._call_repeats} "
                    "times in a row. The request was stopped.")
        return None

    def keep_going(self) -> None:
        """The user saw a suspected loop and wants the answer to go on: stop watching this prompt's text."""
        self.text_enabled = False

    def check_text(self, delta: str) -> str | None:
        if not (self.enabled and self.text_enabled):
            return None
        found = False
        lines = (self._line + delta).split("\n")
        self._line = lines.pop()
        for line in lines:
            found = self._finish_line(line) or found
        if len(self._line) > WINDOW:  # a loop without newlines: watch it as prose now
            found = self._add_prose(self._line) or found
            self._line = ""
        if not found and self._line and not self._in_fence and not _STRUCTURE.match(self._line):
            found = _tail_repeats(self._prose + self._line)
        if found:
            return "Loop detected: the model kept repeating the same text. The request was stopped."
        return None

    def _finish_line(self, line: str) -> bool:
        if _FENCE.match(line):
            self._in_fence = not self._in_fence
            self._prose = ""
            return False
        if self._in_fence:
            return False
        if _STRUCTURE.match(line):
            self._prose = ""
            return False
        return self._add_prose(line + "\n")

    def _add_prose(self, text: str) -> bool:
        self._prose = (self._prose + text)[-WINDOW:]
        return _tail_repeats(self._prose)


def _tail_repeats(text: str) -> bool:
    """Whether `text` ends with one period repeated back to back as often as `copies_needed` asks."""
    text = text[-WINDOW:]
    size = len(text)
    if size < 2 * MIN_PERIOD:
        return False
    key = text[-_KEY:]
    end = size - 1  # where an earlier copy of the key may end at the latest (exclusive)
    while True:
        start = text.rfind(key, 0, end)
        if start < 0:
            return False
        period = size - _KEY - start
        end = start + _KEY - 1
        if period > MAX_PERIOD:
            return False
        if period < MIN_PERIOD or _smallest_period(text[-period:]) < MIN_PERIOD:
            continue  # a run of a short unit (`.....`, `-=-=-=`) is decoration, not a loop
        span = period * copies_needed(period)
        if span <= size and text[size - span + period:] == text[size - span:size - period]:
            return True


def _smallest_period(unit: str) -> int:
    """The shortest string that `unit` is a repetition of, by length."""
    return (unit + unit).find(unit, 1)
