"""The app's keys from the first instant: the terminal set to raw input as the process starts, and what was typed
before that (under the line discipline) kept for the app's first frame. No Textual import here: it runs first."""

from __future__ import annotations

import contextlib
import fcntl
import os
import termios
from typing import IO, Any

# What the terminal's line discipline does to typed keys until the app reads raw input: it gathers lines, echoes,
# turns Ctrl+C into a signal and Enter (CR) into a newline (LF), which the app would read as Ctrl+J.
RAW_LOCAL_OFF = termios.ICANON | termios.ECHO | termios.IEXTEN | termios.ISIG
RAW_INPUT_OFF = termios.IXON | termios.IXOFF | termios.ICRNL | termios.INLCR | termios.IGNCR


class EarlyInput:
    """The terminal in raw input since `capture`; `typed` is what was typed before it, as raw keys."""

    def __init__(self, fd: int, original: list[Any], typed: str) -> None:
        self.fd = fd
        self.original = original  # the terminal's settings as the shell left them: given back at the end
        self.typed = typed

    def restore(self) -> None:
        """The terminal's own settings back (TCSANOW: nothing typed is thrown away)."""
        with contextlib.suppress(termios.error, OSError):
            termios.tcsetattr(self.fd, termios.TCSANOW, self.original)


def capture(stream: IO[str]) -> EarlyInput | None:
    """Sets the terminal on `stream` to raw input now (the app does the same later, after its imports), and takes
    what was typed since the program was launched. None when `stream` is not a terminal."""
    try:
        fd = stream.fileno()
        if not os.isatty(fd):
            return None
        original = termios.tcgetattr(fd)
    except (OSError, ValueError, AttributeError, termios.error):
        return None
    raw = termios.tcgetattr(fd)
    raw[3] &= ~RAW_LOCAL_OFF
    raw[0] &= ~RAW_INPUT_OFF
    raw[6][termios.VMIN] = 1
    raw[6][termios.VTIME] = 0
    try:
        termios.tcsetattr(fd, termios.TCSANOW, raw)
    except termios.error:
        return None
    return EarlyInput(fd, original, _cooked_to_raw(_pending(fd)))


def _pending(fd: int) -> bytes:
    """The bytes waiting in the terminal's input queue (typed before raw input), read without blocking."""
    try:
        count = int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"), "little")
    except OSError:
        return b""
    chunks: list[bytes] = []
    while count > 0:
        try:
            chunk = os.read(fd, count)  # raw input with VMIN=1: returns what is there, at most `count`
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)


def _cooked_to_raw(data: bytes) -> str:
    """Undoes what the line discipline did to keys typed before raw input: Enter arrived as LF (ICRNL); in raw
    input it is CR, which the app reads as Enter. (A Ctrl+J typed in that instant reads as Enter too.)"""
    return data.replace(b"\n", b"\r").decode("utf-8", errors="replace")
