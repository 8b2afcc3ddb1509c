"""Ground: the one policy for text that leaves the process, whatever code points it holds.

A Python string may hold what UTF-8 cannot encode: a lone surrogate (JSON allows `"\\ud800"`, a stream may cut
a pair in two, a file name read with `surrogateescape` carries `\\udc80`-`\\udcff`). Such text must never make
a write raise. The policy, by where the text goes:

- stored or machine-read JSON (session files, checkpoint messages, stream-json and JSON output): `json_text`,
  UTF-8 as usual, with each surrogate (and each line break but LF, already escaped) written as its `\\uXXXX`
  escape. Nothing is lost: reading the JSON back gives the text again (`settle`d: a high and a low surrogate
  side by side are one character, as every UTF-16 reader sees them).
- shown to a person (terminal, widgets, clipboard, logs): `shown_text`, each lone surrogate as U+FFFD.
- raw bytes out (a file the user reads as text): `utf8_bytes`, surrogate-escaped bytes back as the bytes they
  were, any other lone surrogate as U+FFFD.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
# escaped in JSON as well: a surrogate, and the line breaks that are not \n (a reader splitting JSON lines with
# `str.splitlines` or a JavaScript one before ES2019 would cut a record at them)
_JSON_ESCAPED = re.compile("[\ud800-\udfff\x85\u2028\u2029]")
_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")
REPLACEMENT = "\ufffd"


def has_surrogates(text: str) -> bool:
    return _SURROGATE.search(text) is not None


def settle(text: str) -> str:
    """`text` with each high+low surrogate pair joined into the character it stands for; lone ones stay."""
    if not has_surrogates(text):
        return text
    return _PAIR.sub(lambda m: m.group().encode("utf-16-le", "surrogatepass").decode("utf-16-le"), text)


def shown_text(text: str) -> str:
    """`text` as a person sees it: pairs joined, every lone surrogate as U+FFFD. Always encodable as UTF-8."""
    if not has_surrogates(text):
        return text
    return _SURROGATE.sub(REPLACEMENT, settle(text))


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_text(value: Any, **options: Any) -> str:
    """`json.dumps(value, ensure_ascii=False, **options)` that always encodes as UTF-8: a surrogate (only ever
    inside a JSON string) becomes its escape, so `json.loads` gives the value back. So do NEL, LS and PS: a JSON
    line holds no line break of any kind."""
    text = json.dumps(value, ensure_ascii=False, **options)
    return _JSON_ESCAPED.sub(_escape, text)


def utf8_bytes(text: str) -> bytes:
    """`text` as UTF-8 bytes; surrogate-escaped bytes (`\\udc80`-`\\udcff`) are written as the bytes they were."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return shown_outside_escapes(settle(text)).encode("utf-8", "surrogateescape")


def shown_outside_escapes(text: str) -> str:
    """Every lone surrogate as U+FFFD except the surrogate escapes of undecodable bytes."""
    return re.sub("[\ud800-\udc7f\udd00-\udfff]", REPLACEMENT, text)
