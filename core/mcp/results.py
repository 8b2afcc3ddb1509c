"""An MCP `CallToolResult` turned into parts for the model and an `McpResult` for the user."""

from __future__ import annotations

import json
from typing import Any

from gemini_tui.core.ground.display import McpImage, McpResult
from gemini_tui.core.ground.parts import InlineDataPart, Part, TextPart

# The content block types of the MCP spec; a block of another type is dropped before the SDK validates the result
KNOWN_BLOCKS = frozenset({"text", "image", "audio", "resource", "resource_link"})


def drop_unknown_blocks(raw: Any) -> Any:
    """A raw `tools/call` result without content blocks of unknown types (a newer server's, or a broken one's),
    which would otherwise fail the whole call in validation."""
    if not isinstance(raw, dict) or not isinstance(raw.get("content"), list):
        return raw
    kept = [b for b in raw["content"] if isinstance(b, dict) and b.get("type") in KNOWN_BLOCKS]
    if len(kept) == len(raw["content"]):
        return raw
    return {**raw, "content": kept}


def _block_parts(block: Any) -> list[Part]:
    """One content block (text, image, audio, embedded resource, resource link) as parts."""
    kind = getattr(block, "type", None)
    if kind == "text":
        return [TextPart(block.text)]
    if kind in ("image", "audio"):
        return [InlineDataPart(block.mime_type, block.data)]
    if kind == "resource":
        resource = block.resource
        uri = str(getattr(resource, "uri", ""))
        mime = getattr(resource, "mime_type", None)
        if getattr(resource, "text", None) is not None:
            return [TextPart(f"[Resource {uri}{f' ({mime})' if mime else ''}]\n{resource.text}")]
        blob = getattr(resource, "blob", "") or ""
        # embedded binary goes to the model as inline data, as Gemini CLI sends it
        mime = mime or "application/octet-stream"
        return [TextPart(f"[Resource {uri} ({mime})]"), InlineDataPart(mime, blob)]
    if kind == "resource_link":
        shown = getattr(block, "title", None) or getattr(block, "name", "") or ""
        return [TextPart(f"Resource link: {shown} {block.uri}".replace("  ", " "))]
    return [TextPart(json.dumps(block.model_dump(mode="json") if hasattr(block, "model_dump") else str(block)))]


def result_parts(result: Any) -> list[Part]:
    parts: list[Part] = []
    for block in getattr(result, "content", None) or []:
        parts.extend(_block_parts(block))
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(TextPart(json.dumps(structured, ensure_ascii=False, indent=2)))
    return parts


def to_llm_content(parts: list[Part]) -> str | list[Part]:
    """A plain string when the result is only text (the common case), else the parts."""
    if all(isinstance(p, TextPart) for p in parts):
        return "\n".join(p.text for p in parts if isinstance(p, TextPart))
    return parts


def to_display(server: str, tool: str, parts: list[Part], is_error: bool) -> McpResult:
    text = "\n".join(p.text for p in parts if isinstance(p, TextPart))
    images = tuple(McpImage(p.mime_type, p.data) for p in parts
                   if isinstance(p, InlineDataPart) and p.mime_type.startswith("image/"))
    return McpResult(server, tool, text, images, is_error)
