"""Context compression, as pure functions over a list of contents: how full the context is, where to split, how
to shorten old tool outputs, the summarising request and (for the offline model) a deterministic summary."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from gemini_tui.core.ground.compression_request import (  # noqa: F401  (the session's words for compression)
    ACKNOWLEDGEMENT,
    COMPRESSION_INSTRUCTION,
    FINAL_ASK,
    SNAPSHOT_MARKER,
)
from gemini_tui.core.ground.model_api import Content, ContentPart, FunctionCall, FunctionResponse, ThoughtPart
from gemini_tui.core.ground.parts import InlineDataPart, TextPart

KEEP_FRACTION = 0.3  # the newest ~30% of the history stays verbatim
CHARS_PER_TOKEN = 4  # the estimate Gemini CLI uses too when it has no count from the API
OLD_OUTPUT_LIMIT = 4000  # characters: an older tool output longer than this is shortened first
DEFAULT_WINDOW = 1_048_576
_WINDOWS = (  # by model-name prefix, longest first
    ("gemini-1.5-pro", 2_097_152), ("gemini-2.5", 1_048_576), ("gemini-2.0", 1_048_576),
    ("gemini-1.5-flash", 1_048_576), ("gemini-3", 1_048_576), ("offline", 32_768),
)


def context_window(model_name: str) -> int:
    name = model_name.lower().removeprefix("models/")
    for prefix, size in _WINDOWS:
        if name.startswith(prefix):
            return size
    return DEFAULT_WINDOW


def part_chars(part: ContentPart) -> int:
    match part:
        case TextPart(text=text) | ThoughtPart(text=text):
            return len(text)
        case InlineDataPart(data=data):
            return len(data)
        case FunctionCall(name=name, args=args):
            return len(name) + len(json.dumps(args, ensure_ascii=False, default=str))
        case FunctionResponse(name=name, response=response, parts=parts):
            return len(name) + len(json.dumps(response, ensure_ascii=False, default=str)) + sum(
                part_chars(p) for p in parts)
    return 0


def content_chars(content: Content) -> int:
    return sum(part_chars(p) for p in content.parts) + 16


def estimate_tokens(contents: Sequence[Content]) -> int:
    return sum(content_chars(c) for c in contents) // CHARS_PER_TOKEN


def is_prompt(content: Content) -> bool:
    """A user entry that is not an answer to calls."""
    return content.role == "user" and not any(isinstance(p, FunctionResponse) for p in content.parts)


def is_boundary(contents: Sequence[Content], index: int) -> bool:
    """Whether the history may be split before entry `index`: a prompt, or a model turn that follows the answers
    to the model's calls (between two turns of one prompt's run of calls). Never between a call and its
    response, so a long agentic prompt can be compressed while it runs."""
    content = contents[index]
    if is_prompt(content):
        return True
    return content.role == "model" and index > 0 and contents[index - 1].role == "user" and any(
        isinstance(p, FunctionResponse) for p in contents[index - 1].parts)


def split_point(contents: Sequence[Content], keep_fraction: float = KEEP_FRACTION) -> int:
    """The index from which entries stay verbatim: the first turn boundary at or after the point where the
    newest `keep_fraction` of the characters begins, so a call is never split from its response. 0: nothing
    can go."""
    sizes = [content_chars(c) for c in contents]
    total = sum(sizes)
    if not total:
        return 0
    target = total * (1 - keep_fraction)
    seen = 0
    for index, size in enumerate(sizes):
        if seen >= target and index > 0 and is_boundary(contents, index):
            return index
        seen += size
    # no boundary in the newest part: the last one with something before it (older text still goes)
    boundaries = [i for i in range(1, len(contents)) if is_boundary(contents, i)]
    return boundaries[-1] if boundaries else 0


def shorten(text: str, limit: int = OLD_OUTPUT_LIMIT) -> str:
    if len(text) <= limit:
        return text
    head, tail = int(limit * 0.6), int(limit * 0.2)
    omitted = len(text) - head - tail
    return (f"{text[:head]}\n[... {omitted} characters of this older tool output were left out to save context; "
            f"run the tool again for the whole of it ...]\n{text[-tail:]}")


def shorten_old_outputs(contents: Sequence[Content], before: int,
                        limit: int = OLD_OUTPUT_LIMIT) -> tuple[list[Content], int]:
    """`contents` with the large tool outputs of entries before index `before` shortened; returns the new list
    and how many entries changed. Calls and responses stay paired: only the text inside a response changes."""
    result = list(contents)
    changed = 0
    for index in range(min(before, len(result))):
        content = result[index]
        parts: list[ContentPart] = []
        touched = False
        for part in content.parts:
            if isinstance(part, FunctionResponse):
                response = {key: shorten(value, limit) if isinstance(value, str) else value
                            for key, value in part.response.items()}
                if response != part.response:
                    part = FunctionResponse(part.id, part.name, response, part.parts)
                    touched = True
            parts.append(part)
        if touched:
            result[index] = Content(content.role, parts)
            changed += 1
    return result, changed


def summary_request_contents(older: Sequence[Content]) -> tuple[Content, ...]:
    """The history to summarise, ending with the request for the snapshot (roles alternate)."""
    contents = list(older)
    ask = TextPart(FINAL_ASK)
    if contents and contents[-1].role == "user":
        contents[-1] = Content("user", [*contents[-1].parts, ask])
    else:
        contents.append(Content("user", [ask]))
    return tuple(contents)


def replacement(summary: str, kept: Sequence[Content] = ()) -> list[Content]:
    """The compressed history: the snapshot as a user entry, acknowledged by the model, then the `kept` entries.
    When they start with a model turn (a split inside one prompt's run of calls), that turn follows the snapshot
    directly, with no acknowledgement before it."""
    snapshot = Content("user", [TextPart(summary.strip())])
    if kept and kept[0].role == "model":
        return [snapshot, *kept]
    return [snapshot, Content("model", [TextPart(ACKNOWLEDGEMENT)]), *kept]


@dataclass(frozen=True)
class Compression:
    """What one compression did, for the chat mark and `/stats`."""

    before_tokens: int
    after_tokens: int
    summarised: bool  # False: shortening old tool outputs was enough

    @property
    def saved(self) -> int:
        return max(0, self.before_tokens - self.after_tokens)
