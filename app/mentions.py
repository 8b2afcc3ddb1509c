"""`@path` mentions in a prompt: the files are read through `read_many_files` and sent along with the text."""

from __future__ import annotations

import re
from pathlib import Path

from gemini_tui.core.abort import AbortSignal
from gemini_tui.core.parts import Part, TextPart
from gemini_tui.core.registry import ToolRegistry
from gemini_tui.core.tool import ToolError

# `@` at the start or after whitespace, then a path where `\ ` escapes a space; a lone `@` or an e-mail is no mention
_MENTION = re.compile(r"(?:(?<=\s)|^)@((?:\\ |[^\s])+)")
_END_MARKER = "--- End of content ---"


class MentionError(Exception):
    """A mention could not be read; the message says which and why."""


def find_mentions(text: str) -> list[str]:
    return [m.group(1).replace("\\ ", " ").rstrip(".,;:!?") for m in _MENTION.finditer(text)]


async def expand_mentions(registry: ToolRegistry, root: Path, text: str) -> str | list[Part]:
    """The prompt as sent to the model: the text alone, or the text followed by the mentioned files' content."""
    paths = [p for p in find_mentions(text) if p]
    if not paths:
        return text
    tool = registry.get("read_many_files")
    if tool is None:
        raise MentionError("@path needs the read_many_files tool, which is disabled by the settings.")
    params = tool.validate_params({"paths": paths})
    if isinstance(params, ToolError):
        raise MentionError(params.message)
    result = await tool.execute(params, AbortSignal())
    if result.error is not None:
        raise MentionError(result.error.message)
    content = [TextPart(result.llm_content)] if isinstance(result.llm_content, str) else list(result.llm_content)
    last = content[-1] if content else None
    # read_many_files closes its own content with the marker; add one only when it did not (nothing was read)
    closed = isinstance(last, TextPart) and last.text.rstrip().endswith(_END_MARKER)
    return [TextPart(text), TextPart("\n--- Content from referenced files ---\n"), *content,
            *([] if closed else [TextPart("\n" + _END_MARKER)])]
