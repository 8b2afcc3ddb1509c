"""Text made safe to show: nothing that reaches a widget or stdout can drive the terminal.

Files, diffs, command output, MCP results, web pages and model text may hold escape sequences that set the
window title, write the clipboard, move the cursor, switch modes or ring the bell. `clean_terminal_text` is the
one function every display path uses: whole sequences (CSI, OSC, DCS, SOS, PM, APC, two-byte escapes) are
removed, and any other control character is shown as a visible symbol, so a hostile byte is seen, never obeyed.
Command output may keep its colours (`keep_sgr`): an SGR sequence only sets colours and text attributes."""

from __future__ import annotations

import dataclasses
import re
from enum import Enum
from typing import Any, TypeVar

T = TypeVar("T")

# One alternative per kind of sequence, 7-bit (ESC ...) and 8-bit (C1) introducers alike. A string sequence
# (OSC, DCS, SOS, PM, APC) runs to its terminator (BEL for OSC, ST = ESC \ or 0x9C) or, when cut off, to the end
# of its line: cleaning never joins or splits lines, so a diff's two sides stay aligned.
_SEQUENCE = re.compile(
    r"(?P<csi>(?:\x1b\[|\x9b)(?P<params>[0-?]*)(?P<inter>[ -/]*)(?P<final>[@-~]))"
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c|(?=\n)|$)"
    r"|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c\n]*(?:\x1b\\|\x9c|(?=\n)|$)"
    r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*$"  # a CSI cut off by the end of the text
    r"|\x1b[ -/]*[0-~]"  # two-byte escapes and charset designations: ESC c (reset), ESC 7, ESC ( B, ESC =
)
# What is left after whole sequences are gone: C0 controls but tab and newline, a lone ESC, DEL and C1 controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")
_SGR_PARAMS = re.compile(r"[0-9;:]*")
_CRLF = re.compile(r"\r+\n")


def _visible(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode control pictures: ␛ for ESC, ␇ for BEL, ␍ for CR
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"<{code:02X}>"  # C1 controls have no pictures


def _sequence(match: re.Match[str], keep_sgr: bool) -> str:
    if keep_sgr and match.group("csi") and match.group("final") == "m" and not match.group("inter") \
            and _SGR_PARAMS.fullmatch(match.group("params")):
        return "\x1b[" + match.group("params") + "m"  # an 8-bit SGR becomes the 7-bit form every parser knows
    return ""


def clean_terminal_text(text: str, *, keep_sgr: bool = False, keep_cr: bool = False) -> str:
    """`text` without terminal control sequences, and with every other control character made visible.

    Kept: newline and tab; with `keep_sgr`, colour (SGR) sequences; with `keep_cr`, a carriage return (command
    output redraws progress bars with it, and its display keeps what a line ended as). Otherwise a CR before a
    newline is dropped and a lone one is shown as ␍."""
    if not _CONTROL.search(text):
        return text  # the common case: nothing to do, and no copy
    text = _CRLF.sub("\n", text)
    text = _SEQUENCE.sub(lambda match: _sequence(match, keep_sgr), text)
    if keep_sgr:
        parts = text.split("\x1b[")  # the ESC of each kept SGR must survive the control pass
        head = _CONTROL.sub(lambda m: _keep_cr(m, keep_cr), parts[0])
        return head + "".join("\x1b[" + _CONTROL.sub(lambda m: _keep_cr(m, keep_cr), part) for part in parts[1:])
    return _CONTROL.sub(lambda m: _keep_cr(m, keep_cr), text)


def _keep_cr(match: re.Match[str], keep_cr: bool) -> str:
    char = match.group(0)
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
