"""History contents as JSON, for saved chats (`/chat save`, `/chat resume`)."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from gemini_tui.core.ground.model_api import Content, ContentPart, FunctionCall, FunctionResponse, ThoughtPart
from gemini_tui.core.ground.parts import InlineDataPart, TextPart


def _b64(data: bytes | None) -> str | None:
    return base64.b64encode(data).decode() if data is not None else None


def _unb64(data: str | None) -> bytes | None:
    return base64.b64decode(data) if data is not None else None


def part_to_json(part: ContentPart) -> dict[str, Any]:
    match part:
        case TextPart(text=text):
            return {"text": text}
        case InlineDataPart(mime_type=mime, data=data):
            return {"inlineData": {"mimeType": mime, "data": data}}
        case ThoughtPart(text=text, signature=signature):
            return {"thought": text, "signature": _b64(signature)}
        case FunctionCall(id=call_id, name=name, args=args, signature=signature):
            return {"functionCall": {"id": call_id, "name": name, "args": args}, "signature": _b64(signature)}
        case FunctionResponse(id=call_id, name=name, response=response, parts=parts):
            return {"functionResponse": {"id": call_id, "name": name, "response": response,
                                         "parts": [part_to_json(p) for p in parts]}}
    raise TypeError(f"not a content part: {part!r}")


def part_from_json(data: dict[str, Any]) -> ContentPart:
    if "text" in data:
        return TextPart(data["text"])
    if "inlineData" in data:
        return InlineDataPart(data["inlineData"]["mimeType"], data["inlineData"]["data"])
    if "thought" in data:
        return ThoughtPart(data["thought"], _unb64(data.get("signature")))
    if "functionCall" in data:
        call = data["functionCall"]
        return FunctionCall(call["id"], call["name"], dict(call.get("args") or {}), _unb64(data.get("signature")))
    if "functionResponse" in data:
        resp = data["functionResponse"]
        parts = tuple(p for p in (part_from_json(x) for x in resp.get("parts", []))
                      if isinstance(p, TextPart | InlineDataPart))
        return FunctionResponse(resp["id"], resp["name"], dict(resp["response"]), parts)
    raise ValueError(f"unknown part in saved chat: {sorted(data)}")


def contents_to_json(contents: Sequence[Content]) -> list[dict[str, Any]]:
    return [{"role": c.role, "parts": [part_to_json(p) for p in c.parts]} for c in contents]


def contents_from_json(data: list[dict[str, Any]]) -> list[Content]:
    return [Content(item["role"], [part_from_json(p) for p in item["parts"]]) for item in data]
