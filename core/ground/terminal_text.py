"""Text made safe to show: nothing that reaches a widget or stdout can drive the terminal.

Files, diffs, command output, MCP results, web pages and model text may hold escape sequences that set the
window title, write the clipboard, move the cursor, switch modes or ring the bell. `clean_terminal_text` is the
one function every display path uses: whole sequences (CSI, OSC, DCS, SOS, PM, APC, two-byte escapes) are
removed, and any other control character is shown as a visible symbol, so a hostile byte is seen, never obeyed.
Command output may keep its colours (`keep_sgr`): an SGR sequence only sets colours and text attributes."""

from __future__ import annotations

import dataclasses
import functools
import re
from enum import Enum
from typing import Any, TypeVar

from gemini_tui.core.ground.text_boundary import settle

T = TypeVar("T")

# Only text holding a control character needs the patterns below: they are compiled when the first such text is
# cleaned (`_patterns`), not as the module is imported on the way to the first frame, whose text holds none.
# What is left after whole sequences are gone: C0 controls but tab and newline, a lone ESC, DEL and C1 controls.
# A lone surrogate (UTF-8 cannot encode it) is shown as U+FFFD, as `text_boundary.shown_text` says.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\ud800-\udfff]")
# Characters whose meaning depends on what follows them: a CR (CR LF is one line end) and sequence introducers.
# A high surrogate too: with the low one of the next piece it is one character (a pair cut between two chunks).
_OPENERS = re.compile("[\r\x1b\x9b\x9d\x90\x98\x9e\x9f\ud800-\udbff]")


class _Patterns:
    def __init__(self) -> None:
        # One alternative per kind of sequence, 7-bit (ESC ...) and 8-bit (C1) introducers alike. A string sequence
        # (OSC, DCS, SOS, PM, APC) runs to its terminator (BEL for OSC, ST = ESC \ or 0x9C) or, when cut off, to the
        # end of its line: cleaning never joins or splits lines, so a diff's two sides stay aligned. `\Z`, not `$`
        # (which also matches before a final newline): what a sequence is must not depend on whether more follows.
        self.sequence = re.compile(
            r"(?P<csi>(?:\x1b\[|\x9b)(?P<params>[0-?]*)(?P<inter>[ -/]*)(?P<final>[@-~]))"
            r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c|(?=\n)|\Z)"
            r"|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c\n]*(?:\x1b\\|\x9c|(?=\n)|\Z)"
            r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*\Z"  # a CSI cut off by the end of the text
            r"|\x1b[ -/]*[0-~]"  # two-byte escapes and charset designations: ESC c (reset), ESC 7, ESC ( B, ESC =
        )
        self.clean = re.compile(f"{self.sequence.pattern}|(?P<control>{_CONTROL.pattern})")
        self.sgr_params = re.compile(r"[0-9;:]*")
        self.crlf = re.compile(r"\r+\n")
        # What the cleaner reads to decide what a sequence introducer starts (see `_reach`).
        self.csi_body = re.compile(r"[0-?]*[ -/]*")
        self.osc_body = re.compile(r"[^\x07\x1b\x9c\n]*")
        self.string_body = re.compile(r"[^\x1b\x9c\n]*")
        self.intermediates = re.compile(r"[ -/]*")
        self.cr_run = re.compile(r"\r+")
        # A sequence still open at the end of what is held, and what a whole piece must be to leave it open: until
        # a piece holds something else, the sequence only grows (a long unterminated title), and nothing needs
        # scanning again.
        self.csi_more = re.compile(r"[0-?]*[ -/]*")
        self.intermediates_more = re.compile(r"[ -/]*")
        self.still_open = (
            (re.compile(r"(?:\x1b\]|\x9d)[^\x07\x1b\x9c\n]*"), re.compile(r"[^\x07\x1b\x9c\n]*")),
            (re.compile(r"(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c\n]*"), re.compile(r"[^\x1b\x9c\n]*")),
            (re.compile(r"(?:\x1b\[|\x9b)[0-?]*"), self.csi_more),
            (re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]+|\x1b[ -/]+"), self.intermediates_more),
        )


@functools.cache
def _patterns() -> _Patterns:
    return _Patterns()


def _visible(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode control pictures: ␛ for ESC, ␇ for BEL, ␍ for CR
    if code == 0x7F:
        return "\u2421"  # ␡
    if code >= 0xD800:
        return "\ufffd"  # a lone surrogate
    return f"<{code:02X}>"  # C1 controls have no pictures


def _sequence(match: re.Match[str], keep_sgr: bool) -> str:
    if keep_sgr and match.group("csi") and match.group("final") == "m" and not match.group("inter") \
            and _patterns().sgr_params.fullmatch(match.group("params")):
        return "\x1b[" + match.group("params") + "m"  # an 8-bit SGR becomes the 7-bit form every parser knows
    return ""


def clean_terminal_text(text: str, *, keep_sgr: bool = False, keep_cr: bool = False) -> str:
    """`text` without terminal control sequences, and with every other control character made visible.

    Kept: newline and tab; with `keep_sgr`, colour (SGR) sequences; with `keep_cr`, a carriage return (command
    output redraws progress bars with it, and its display keeps what a line ended as). Otherwise a CR before a
    newline is dropped and a lone one is shown as ␍."""
    if not _CONTROL.search(text):
        return text  # the common case: nothing to do, and no copy
    patterns = _patterns()
    text = settle(text)  # a surrogate pair is the character it stands for; only lone halves are shown as U+FFFD
    text = patterns.crlf.sub("\n", text)
    # One pass, sequences first: a control byte left between two removed sequences (ESC, then ESC \ removed, then
    # `[`) is made visible, never joined with what follows into a new sequence.
    return patterns.clean.sub(lambda match: _replace(match, keep_sgr, keep_cr), text)


def _replace(match: re.Match[str], keep_sgr: bool, keep_cr: bool) -> str:
    char = match.group("control")
    if char is None:
        return _sequence(match, keep_sgr)
    return char if keep_cr and char == "\r" else _visible(char)


def has_terminal_controls(text: str) -> bool:
    """Whether `text` holds any byte a terminal would act on (tab and newline aside): what tests assert never
    reaches the screen."""
    return bool(_CONTROL.search(text))


def clean_value(value: T, *, keep_sgr: bool = False, keep_cr: bool = False) -> T:
    """`value` with every string in it cleaned: strings, dict keys and values, lists, tuples and (frozen)
    dataclasses, copied only where something changed. Other objects (futures, enums, numbers) pass as they are.
    For what is shown, never for what is written: a file's bytes must stay the bytes the user has."""
    return _clean_any(value, keep_sgr, keep_cr)  # type: ignore[no-any-return]


def _clean_any(value: Any, keep_sgr: bool, keep_cr: bool) -> Any:
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        return clean_terminal_text(value, keep_sgr=keep_sgr, keep_cr=keep_cr)
    if isinstance(value, dict):
        return {_clean_any(k, keep_sgr, keep_cr): _clean_any(v, keep_sgr, keep_cr) for k, v in value.items()}
    if isinstance(value, list | tuple):
        cleaned = [_clean_any(item, keep_sgr, keep_cr) for item in value]
        if all(a is b for a, b in zip(cleaned, value, strict=True)):
            return value
        return type(value)(cleaned) if not hasattr(value, "_fields") else type(value)(*cleaned)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for item in dataclasses.fields(value):
            if not item.init:
                continue
            old = getattr(value, item.name)
            new = _clean_any(old, keep_sgr, keep_cr)
            if new is not old and new != old:
                changes[item.name] = new
        return dataclasses.replace(value, **changes) if changes else value
    return value


def _reach(text: str, start: int) -> int:
    """How far `clean_terminal_text` reads to decide what the character at `start` begins (exclusive); past the end
    (`len(text) + 1`) when the answer depends on text not arrived yet. It may say more than the cleaner reads, never
    less: a longer reach only holds text back a little longer."""
    patterns = _patterns()
    end = len(text)
    char = text[start]
    body = start + 1
    if "\ud800" <= char <= "\udbff":
        return start + 2  # its pair, if the next character is its low half
    if char == "\r":
        return patterns.cr_run.match(text, start).end() + 1  # type: ignore[union-attr]
    if char == "\x1b":
        if body == end:
            return end + 1
        kind = text[body]
        body += 1
        if kind == "[":
            char = "\x9b"
        elif kind == "]":
            char = "\x9d"
        elif kind in "PX^_":
            char = "\x90"
        else:  # a two-byte escape or charset designation: ESC, intermediates, then one final byte
            return patterns.intermediates.match(text, body - 1).end() + 1  # type: ignore[union-attr]
    if char == "\x9b":
        return patterns.csi_body.match(text, body).end() + 1  # type: ignore[union-attr]
    if char in "\x9d\x90\x98\x9e\x9f":  # a string runs to its terminator, its line's end or an ESC (maybe ESC \)
        stop = (patterns.osc_body if char == "\x9d" else patterns.string_body).match(text, body).end()  # type: ignore[union-attr]
        if stop == end:
            return end + 1
        return stop + (2 if text[stop] == "\x1b" else 1)
    return start + 1


def _still_open(held: str) -> re.Pattern[str] | None:
    for whole, more in _patterns().still_open:
        if whole.fullmatch(held):
            return more
    return None


class TerminalTextStream:
    """`clean_terminal_text` for text that arrives in pieces (a streamed answer): what `feed` returns, joined with
    `flush`, is what cleaning the whole text at once gives. A sequence cut by the end of a piece (`ESC ]0;ti` then
    `tle BEL`, `ESC [3` then `1m`, a CR that may be the start of CR LF) is held back until the next piece says what
    it is; `flush` cleans whatever is still held when the stream ends, so nothing is lost. One stream per answer:
    text of another answer must not complete this one's sequences."""

    def __init__(self, *, keep_sgr: bool = False, keep_cr: bool = False) -> None:
        self.keep_sgr = keep_sgr
        self.keep_cr = keep_cr
        self._held = ""
        self._open: re.Pattern[str] | None = None  # what keeps the sequence held open (see `_Patterns.still_open`)

    @property
    def held(self) -> str:
        """The raw text held back, waiting for the rest of its sequence."""
        return self._held

    def feed(self, chunk: str) -> str:
        """The cleaned text that `chunk` (after what is held) makes final."""
        more = self._open
        if more is not None and more.fullmatch(chunk):
            self._held += chunk  # the open sequence goes on: nothing new to decide
            if more is _patterns().csi_more and chunk and chunk[-1] < "0":
                self._open = _patterns().intermediates_more  # its parameters ended; intermediates only from here
            return ""
        text = self._held + chunk
        cut = self._safe_end(text)
        self._held = text[cut:]
        self._open = _still_open(self._held)
        return self._clean(text[:cut])

    def flush(self) -> str:
        """The stream ended: what was held, cleaned as the end of the text."""
        text, self._held, self._open = self._held, "", None
        return self._clean(text)

    def reset(self) -> None:
        """Drop what is held (the text it belongs to was discarded)."""
        self._held, self._open = "", None

    def _clean(self, text: str) -> str:
        return clean_terminal_text(text, keep_sgr=self.keep_sgr, keep_cr=self.keep_cr) if text else ""

    @staticmethod
    def _safe_end(text: str) -> int:
        """The largest cut such that no decision of the cleaner's before it reads at or after it: the text before
        the cut is cleaned now, and nothing that follows can change how."""
        if not _OPENERS.search(text):
            return len(text)
        # CR LF pairs are joined before sequences are matched; on the raw text a CR is only one more body
        # character of a string, or ends a CSI as LF does, so the spans are the same.
        spans = {match.start(): match.end() for match in _patterns().sequence.finditer(text)}
        inside = 0  # the end of the last sequence matched: openers before it are part of it, not decisions
        reach = 0  # how far the decisions so far have read
        best = 0
        for opener in _OPENERS.finditer(text, 0):
            start = opener.start()
            if start < inside:
                continue
            if reach <= start:
                best = start  # every decision before `start` read only text before it
            inside = spans.get(start, start)
            reach = max(reach, _reach(text, start), inside)
            if reach > len(text):
                return best
        return len(text)
