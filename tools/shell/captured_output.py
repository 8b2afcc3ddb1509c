"""Command output kept within a cap: head and tail in memory, the whole of it in a file outside the project."""

from __future__ import annotations

import os
import re
import tempfile
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

# CSI/OSC and other escape sequences: the model reads plain text, the UI gets the colours.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


_OVERWRITTEN = re.compile(r"[^\n]*\r(?!\n)")


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def plain_text(text: str) -> str:
    """What the model reads: no escape sequences, and of a line redrawn with `\r` (progress bars) only what
    was left on screen."""
    return _OVERWRITTEN.sub("", strip_ansi(text).replace("\r\n", "\n"))


def private_output_dir(avoid: Path | None = None) -> Path:
    """A private temp directory for saved outputs; never inside `avoid` (the project root)."""
    base = Path(tempfile.gettempdir()).resolve()
    if avoid is not None and (base == avoid or avoid in base.parents):
        base = Path("/tmp") if os.path.isdir("/tmp") else Path.home()
    return Path(tempfile.mkdtemp(prefix="gemini-tui-shell-", dir=base))


class CapturedOutput:
    """Appends chunks; past `limit` characters only the first and last `limit // 2` stay in memory and the
    full text goes to a file (`saved_to`)."""

    def __init__(self, limit: int, save_dir: Callable[[], Path]) -> None:
        """`save_dir` gives the directory for the full output; it is asked only when the cap is passed."""
        self.limit = limit
        self._save_dir = save_dir
        self._head: list[str] = []
        self._head_len = 0
        self._tail: deque[str] = deque()
        self._tail_len = 0
        self.total = 0
        self.saved_to: Path | None = None
        self._file: TextIO | None = None

    @property
    def truncated(self) -> bool:
        return self.total > self.limit

    def append(self, chunk: str) -> None:
        if not chunk:
            return
        self.total += len(chunk)
        if self._file is None and self.total > self.limit:
            self._open_file()
        if self._file is not None:
            self._file.write(chunk)
        self._tail.append(chunk)
        self._tail_len += len(chunk)
        self._settle()

    def _open_file(self) -> None:
        directory = self._save_dir()
        directory.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix="output-", suffix=".log", dir=directory)
        self.saved_to = Path(name)
        self._file = os.fdopen(fd, "w", encoding="utf-8", errors="replace")
        self._file.write("".join(self._head) + "".join(self._tail))

    def _settle(self) -> None:
        """Move text from the tail into the head until the head is full, then drop the tail's oldest text."""
        half = self.limit // 2
        while self._head_len < half and self._tail:
            chunk = self._tail.popleft()
            self._tail_len -= len(chunk)
            room = half - self._head_len
            self._head.append(chunk[:room])
            self._head_len += min(room, len(chunk))
            if len(chunk) > room:
                self._tail.appendleft(chunk[room:])
                self._tail_len += len(chunk) - room
        if self._file is None:
            return
        keep = self.limit - half
        while self._tail and self._tail_len - len(self._tail[0]) >= keep:
            self._tail_len -= len(self._tail.popleft())
        if self._tail and self._tail_len > keep:
            excess = self._tail_len - keep
            self._tail[0] = self._tail[0][excess:]
            self._tail_len -= excess

    def close(self) -> None:
        if self._file is not None:
            self._file.close()

    def text(self) -> str:
        """Everything when it fits; else head, a marker naming the dropped amount and the file, and tail."""
        head, tail = "".join(self._head), "".join(self._tail)
        if not self.truncated:
            return head + tail
        dropped = self.total - len(head) - len(tail)
        marker = f"\n\n... [{dropped} characters truncated; full output saved to {self.saved_to}] ...\n\n"
        return head + marker + tail
