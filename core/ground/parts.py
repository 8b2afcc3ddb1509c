"""Content parts a tool can return to the model, independent of any SDK's types."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TextPart:
    text: str


@dataclass(frozen=True)
class InlineDataPart:
    """Binary content for the model (images, PDF, audio): base64 `data` with its `mime_type`."""

    mime_type: str
    data: str


Part = TextPart | InlineDataPart
