"""`@path` mentions in a prompt: what a mention is, how the files read for it join the prompt, and how that
prompt reads back (the session writes it; the offline model answers from it).

The session runs the read through `read_many_files` in its scheduler (so it shows as a call and follows the same
rules as any other); MCP resources (`@server:uri`) are read by `core/mcp/prompts.py`."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gemini_tui.core.ground.parts import InlineDataPart, Part, TextPart

if TYPE_CHECKING:
    from gemini_tui.core.ground.tool_result import ToolResult

ReadFiles = Callable[[dict[str, Any]], Awaitable["ToolResult"]]


@dataclass(frozen=True)
class ResourceReader:
    """`@server:uri` mentions: `owns` says whether a mention names a connected MCP server's resource; `read`
    returns its content."""

    owns: Callable[[str], bool]
    read: Callable[[str], Awaitable[list[Part]]]


# `@` at the start or after whitespace, then a path in double quotes, or one where `\ ` escapes a space; a lone `@`,
# an escaped `\@` or an e-mail is no mention
_MENTION = re.compile(r'(?:(?<=\s)|^)@(?:"([^"\n]+)"|((?:\\ |[^\s])+))')
END_MARKER = "--- End of content ---"
FILES_HEADER = "\n--- Content from referenced files ---\n"
RESOURCES_HEADER = "\n--- Content from referenced resources ---"
# read_many_files heads each file's text with its absolute path on a line of its own
_FILE_SECTION = re.compile(r"^--- (/.*) ---\n", re.M)
_RESOURCE_SECTION = re.compile(r"\n--- (.+) ---\n")


class MentionError(Exception):
    """A mention could not be read; the message says which and why."""


@dataclass(frozen=True)
class Mention:
    """One `@path` in a prompt: where it stands (`start`:`end`, the `@` included) and the path it names."""

    start: int
    end: int
    path: str


def mention_spans(text: str) -> list[Mention]:
    found = []
    for match in _MENTION.finditer(text):
        if match.group(1) is not None:  # quoted: the quotes say where it ends
            found.append(Mention(match.start(), match.end(), match.group(1)))
            continue
        raw = match.group(2)
        path = raw.rstrip(".,;:!?")  # the sentence's punctuation is not part of the path
        found.append(Mention(match.start(), match.end() - (len(raw) - len(path)), path.replace("\\ ", " ")))
    return found


def find_mentions(text: str) -> list[str]:
    return [m.path for m in mention_spans(text)]


@dataclass(frozen=True)
class Attachment:
    """What one mention sent: a file (`name` its absolute path) or an MCP resource (`server:uri`), with its text,
    or the mime type of content sent as inline data (an image, a PDF)."""

    name: str
    text: str = ""
    mime_type: str = ""
    size: int = 0  # bytes of inline data


@dataclass(frozen=True)
class AttachedPrompt:
    """A prompt read back from the parts `expand_mentions` made: the text as typed, what was attached, and what
    read_many_files said instead of content (nothing found, skipped files, its size limit)."""

    text: str
    attachments: tuple[Attachment, ...]
    notes: tuple[str, ...]


def read_back(parts: Sequence[object]) -> AttachedPrompt | None:
    """The prompt and its mentions' content in `parts` as sent to the model (Gemini receives the same parts), or
    None when they hold no mentioned content. A model without an API (the offline one) reads what was attached
    here instead of taking `@path` as words."""
    start = next((i for i, p in enumerate(parts) if i and isinstance(p, TextPart)
                  and (p.text == FILES_HEADER or p.text == RESOURCES_HEADER)), None)
    if start is None or not isinstance(prompt := parts[start - 1], TextPart):
        return None
    attachments: list[Attachment] = []
    notes: list[str] = []
    current: dict[str, Any] | None = None

    def close() -> None:
        if current is not None:
            text = "".join(current["texts"]).replace(END_MARKER, "").strip("\n")
            attachments.append(Attachment(current["name"], text, current["mime"], current["size"]))

    def add(text: str) -> None:
        text = text.replace(END_MARKER, "")
        if current is not None:
            current["texts"].append(text)
        elif text.strip() and text not in (FILES_HEADER, RESOURCES_HEADER):
            notes.append(text.strip())

    for part in parts[start:]:
        if isinstance(part, InlineDataPart):
            if current is not None:
                current["mime"], current["size"] = part.mime_type, len(part.data) * 3 // 4 - part.data.count("=", -2)
            continue
        if not isinstance(part, TextPart) or part.text in (FILES_HEADER, RESOURCES_HEADER):
            continue
        if heading := _RESOURCE_SECTION.fullmatch(part.text):
            close()
            current = {"name": heading.group(1), "texts": [], "mime": "", "size": 0}
            continue
        position = 0
        for section in _FILE_SECTION.finditer(part.text):
            add(part.text[position:section.start()])
            close()
            current = {"name": section.group(1), "texts": [], "mime": "", "size": 0}
            position = section.end()
        add(part.text[position:])
    close()
    return AttachedPrompt(prompt.text, tuple(attachments), tuple(notes))


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
        return [TextPart(text), TextPart(RESOURCES_HEADER), *resource_parts, TextPart("\n" + END_MARKER)]
    if read_files is None:
        raise MentionError("@path needs the read_many_files tool, which is disabled by the settings.")
    result = await read_files({"paths": paths})
    if result.error is not None:
        raise MentionError(result.error.message)
    content = [TextPart(result.llm_content)] if isinstance(result.llm_content, str) else list(result.llm_content)
    last = content[-1] if content else None
    # read_many_files closes its own content with the marker; add one only when it did not (nothing was read)
    closed = isinstance(last, TextPart) and last.text.rstrip().endswith(END_MARKER)
    return [TextPart(text), TextPart(FILES_HEADER), *content,
            *([] if closed else [TextPart("\n" + END_MARKER)]), *resource_parts,
            *([TextPart("\n" + END_MARKER)] if resource_parts else [])]
