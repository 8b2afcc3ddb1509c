"""One streamed GenerateContentResponse (the raw JSON object) read leniently, before any SDK model sees it.

A model (or a proxy in front of it) can send anything: args nested hundreds deep, `args` as a string, `text: 5`,
a usage block of the wrong types. Reading stops at the fields we use, checks each one's type, and walks nested
values without recursion, so one bad part is dropped (text) or becomes a call with a `problem` (answered with
an error response) instead of failing the whole turn."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from typing import Any

from gemini_tui.core.ground.events import Usage

MAX_ARGS_DEPTH = 32  # no tool's parameters nest deeper than a few levels
MAX_ARGS_BYTES = 4 * 1024 * 1024  # a call's arguments as JSON; a larger one is a runaway, not an edit
MAX_NAME_LENGTH = 128  # Gemini's own limit for function names is 64; be generous


@dataclass(frozen=True)
class ReadCall:
    """A functionCall part. `problem` says why it cannot run (then `args` is empty)."""

    id: str | None
    name: str
    args: dict[str, Any]
    signature: bytes | None
    problem: str | None = None


@dataclass(frozen=True)
class ReadText:
    text: str
    thought: bool
    signature: bytes | None


@dataclass
class ReadResponse:
    """What one chunk holds that we use. `dropped` describes parts that were unusable (for the debug log)."""

    parts: list[ReadText | ReadCall] = field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage | None = None
    block_reason: str | None = None
    dropped: list[str] = field(default_factory=list)


class UnreadableResponse(ValueError):
    """The chunk is not a response at all (not an object): the stream is broken."""


def nesting_depth(value: Any, limit: int) -> int:
    """How deep `value` nests (a scalar is 0), counted without recursion; stops counting past `limit`."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        stack.extend((child, depth) for child in children)
    return deepest


def _signature(value: Any) -> bytes | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return base64.b64decode(value, validate=False)
    except (binascii.Error, ValueError):
        return None


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def read_usage(value: Any) -> Usage | None:
    if not isinstance(value, dict):
        return None
    return Usage(
        prompt_tokens=_count(value.get("promptTokenCount")),
        candidates_tokens=_count(value.get("candidatesTokenCount")),
        thoughts_tokens=_count(value.get("thoughtsTokenCount")),
        cached_tokens=_count(value.get("cachedContentTokenCount")),
        tool_prompt_tokens=_count(value.get("toolUsePromptTokenCount")),
        total_tokens=_count(value.get("totalTokenCount")),
    )


def _read_call(value: Any, signature: bytes | None) -> ReadCall:
    if not isinstance(value, dict):
        return ReadCall(None, "invalid_call", {}, signature, "the functionCall was not an object")
    raw_id = value.get("id")
    call_id = raw_id if isinstance(raw_id, str) and raw_id else None
    name = value.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME_LENGTH:
        shown = name[:40] if isinstance(name, str) else type(name).__name__
        return ReadCall(call_id, "invalid_call", {}, signature,
                        f"the call had no usable function name ({shown!r}); call a declared tool by its name")
    args = value.get("args", {})
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return ReadCall(call_id, name, {}, signature,
                        f"the call's args were a {_json_type(args)}, not an object of named parameters; "
                        "send the parameters as a JSON object")
    depth = nesting_depth(args, MAX_ARGS_DEPTH)
    if depth > MAX_ARGS_DEPTH:
        return ReadCall(call_id, name, {}, signature,
                        f"the call's args nest more than {MAX_ARGS_DEPTH} levels deep; send flat parameters")
    try:
        size = len(json.dumps(args, ensure_ascii=False))
    except (TypeError, ValueError):
        return ReadCall(call_id, name, {}, signature, "the call's args could not be read as JSON")
    if size > MAX_ARGS_BYTES:
        return ReadCall(call_id, name, {}, signature,
                        f"the call's args were {size // 1024} KB, over the {MAX_ARGS_BYTES // 1024} KB limit; "
                        "send smaller pieces")
    return ReadCall(call_id, name, args, signature)


def _json_type(value: Any) -> str:
    match value:
        case str():
            return "string"
        case bool():
            return "boolean"
        case int() | float():
            return "number"
        case list():
            return "list"
    return type(value).__name__


def read_response(data: Any) -> ReadResponse:
    """The usable content of one parsed chunk. Raises UnreadableResponse when it is not an object."""
    if not isinstance(data, dict):
        raise UnreadableResponse(f"a stream chunk was a {_json_type(data)}, not a response object")
    out = ReadResponse(usage=read_usage(data.get("usageMetadata")))
    feedback = data.get("promptFeedback")
    if isinstance(feedback, dict) and isinstance(feedback.get("blockReason"), str) and feedback["blockReason"]:
        out.block_reason = feedback["blockReason"]
    candidates = data.get("candidates")
    if not isinstance(candidates, list) or not candidates:
        return out
    candidate = candidates[0]  # we ask for one
    if not isinstance(candidate, dict):
        out.dropped.append(f"a candidate that was a {_json_type(candidate)}")
        return out
    finish = candidate.get("finishReason")
    if isinstance(finish, str) and finish:
        out.finish_reason = finish[:64]
    content = candidate.get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    if not isinstance(parts, list):
        return out
    for part in parts:
        if not isinstance(part, dict):
            out.dropped.append(f"a part that was a {_json_type(part)}")
            continue
        signature = _signature(part.get("thoughtSignature"))
        if "functionCall" in part:
            out.parts.append(_read_call(part["functionCall"], signature))
            continue
        text = part.get("text")
        if text is None:
            continue  # another kind of part (executable code, inline data) we do not ask for
        if not isinstance(text, str):
            out.dropped.append(f"a text part whose text was a {_json_type(text)}")
            continue
        if text:
            out.parts.append(ReadText(text, part.get("thought") is True, signature))
    return out
