"""Progress of a long tool call as lines of its live output, throttled so a 10,000-file read cannot flood the UI."""

from __future__ import annotations

import time
from collections.abc import Callable

MAX_PER_SECOND = 10.0  # the queue row and the card redraw at most this often for one call's progress


class ProgressReporter:
    """Sends a progress line to a call's live output (`CallContext.on_output`): at most `per_second` lines a
    second, the rest dropped (each line replaces the last on screen, so only the newest matters), and the final
    one always. Safe to call from the tool's worker thread (the scheduler's `on_output` hops to the loop)."""

    def __init__(self, emit: Callable[[str], None] | None, per_second: float = MAX_PER_SECOND,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._emit = emit
        self._interval = 1.0 / per_second
        self._clock = clock
        self._last: float | None = None
        self._last_text = ""

    def report(self, text: str, *, final: bool = False) -> bool:
        """Sends `text` unless one was sent less than an interval ago (a `final` line always goes, once).
        True when it was sent."""
        if self._emit is None or (final and text == self._last_text):
            return False
        now = self._clock()
        if not final and self._last is not None and now - self._last < self._interval:
            return False
        self._last, self._last_text = now, text
        self._emit(text + "\n")
        return True


def files_read(done: int, total: int) -> str:
    return f"read {done:,} of {total:,} file{'' if total == 1 else 's'}"


def files_found(found: int) -> str:
    return f"listing: {found:,} file{'' if found == 1 else 's'} found so far"
