"""`@path` mentions in a prompt: the files are read through `read_many_files` and sent along with the text.

The session runs the read through its scheduler (so it shows as a call and follows the same rules as any other);
here is only what a mention is and how its content joins the prompt."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gemini_tui.core.ground.parts import Part, TextPart

if TYPE_CHECKING:
    from gemini_tui.core.ground.tool_result import ToolResult

ReadFiles = Callable[[dict[str, Any]], Awaitable["ToolResult"]]


@dataclass(frozen=True)
class ResourceReader:
    """`@server:uri` mentions: `owns` says whether a mention names a connected MCP server's resource; `read`
    returns its content."""

    owns: Callable[[str], bool]
    read: Callable[[str], Awaitable[list[Part]]]


# `@` at the start or after whitespace, then a path where `\ ` escapes a space; a lone `@` or an e-mail is no mention
_MENTION = re.compile(r"(?:(?<=\s)|^)@((?:\\ |[^\s])+)")
_END_MARKER = "--- End of content ---"


class MentionError(Exception):
    """A mention could not be read; the message says which and why."""


def find_mentions(text: str) -> list[str]:
    return [m.group(1).replace("\\ ", " ").rstrip(".,;:!?") for m in _MENTION.finditer(text)]


async def expand_mentions(text: str, read_files: ReadFiles | None,
                          resources: ResourceReader | None = None) -> str | list[Part]:
    """The prompt as sent to the model: the text alone, or the text followed by the mentioned files' content
    (and MCP resources' content, for `@server:uri`). `read_files` runs `read_many_files` with the given
    arguments (None: the tool is disabled)."""
    mentions = [p for p in find_mentions(text) if p]
    named = [m for m in mentions if resources is not None and resources.owns(m)]
    paths = [m for m in mentions if m not in named]
    resource_parts: list[Part] = []
    for mention in named:
        assert resources is not None
        resource_parts += [TextPart(f"\n--- {mention} ---\n"), *await resources.read(mention)]
    if not paths:
        if not resource_parts:
            return text
        return [TextPart(text), TextPart("\n--- Content from referenced resources ---"), *resource_parts,
                TextPart("\n" + _END_MARKER)]
    if read_files is None:
        raise MentionError("@path needs the read_many_files tool, which is disabled by the settings.")
    result = await read_files({"paths": paths})
    if result.error is not None:
        raise MentionError(result.error.message)
    content = [TextPart(result.llm_content)] if isinstance(result.llm_content, str) else list(result.llm_content)
    last = content[-1] if content else None
    # read_many_files closes its own content with the marker; add one only when it did not (nothing was read)
    closed = isinstance(last, TextPart) and last.text.rstrip().endswith(_END_MARKER)
    return [TextPart(text), TextPart("\n--- Content from referenced files ---\n"), *content,
            *([] if closed else [TextPart("\n" + _END_MARKER)]), *resource_parts,
            *([TextPart("\n" + _END_MARKER)] if resource_parts else [])]


def mcp_resource_reader(mcp: object) -> ResourceReader | None:
    """`@server:uri` mentions of connected MCP servers' resources (read with resources/read)."""
    owner = getattr(mcp, "resource_owner", None)
    if owner is None:
        return None

    async def read(mention: str) -> list[Part]:
        from gemini_tui.core.mcp.prompts import read_resource

        found = owner(mention)
        if found is None:
            raise MentionError(f"@{mention}: no connected MCP server by that name.")
        try:
            return await read_resource(*found)
        except Exception as exc:  # the server's error (unknown URI, ...), said as the mention's
            raise MentionError(f"@{mention}: the MCP server could not read it ({exc}).") from exc

    return ResourceReader(lambda mention: owner(mention) is not None, read)
