"""JSON with comments: the settings dialect Gemini CLI users write, read as plain JSON."""

from __future__ import annotations

import re

_COMMENTS = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMAS = re.compile(r'"(?:\\.|[^"\\])*"|,(?=\s*[}\]])')


def strip_json_comments(text: str) -> str:
    """JSON with comments and trailing commas (what Gemini CLI users write) into plain JSON. Strings are kept
    as they are; comments become spaces so error positions still point at the right line."""
    def keep(match: re.Match[str]) -> str:
        token = match.group(0)
        if token.startswith('"'):
            return token
        return re.sub(r"[^\n]", " ", token)

    return _TRAILING_COMMAS.sub(keep, _COMMENTS.sub(keep, text))
