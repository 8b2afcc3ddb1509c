"""The ground floor: the words every room shares, and nothing else.

Content parts, the model's request and stream types (`model_api`), events and their bus, display objects,
confirmation details, `ToolResult` and error kinds, the abort signal, the debug log and the settings' JSON
dialect. Each room above imports these downwards; nothing here imports a room, so no two rooms need each other
just to name a thing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemini_tui.core.ground.lazy_face import lazy_face

if TYPE_CHECKING:
    from gemini_tui.core.ground.abort import AbortSignal
    from gemini_tui.core.ground.confirmation import ConfirmationDetails, ConfirmationOutcome
    from gemini_tui.core.ground.events import EventBus, Usage
    from gemini_tui.core.ground.model_api import Content, FunctionCall, FunctionResponse, ModelClient
    from gemini_tui.core.ground.parts import InlineDataPart, Part, TextPart
    from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult

__all__ = [
    "AbortSignal", "ConfirmationDetails", "ConfirmationOutcome", "Content", "EventBus", "FunctionCall",
    "FunctionResponse", "InlineDataPart", "ModelClient", "Part", "TextPart", "ToolError", "ToolErrorKind",
    "ToolResult", "Usage",
]

__getattr__ = lazy_face(__name__, {
    "gemini_tui.core.ground.abort": ("AbortSignal",),
    "gemini_tui.core.ground.confirmation": ("ConfirmationDetails", "ConfirmationOutcome"),
    "gemini_tui.core.ground.model_api": ("Content", "FunctionCall", "FunctionResponse", "ModelClient"),
    "gemini_tui.core.ground.events": ("EventBus", "Usage"),
    "gemini_tui.core.ground.parts": ("InlineDataPart", "Part", "TextPart"),
    "gemini_tui.core.ground.tool_result": ("ToolError", "ToolErrorKind", "ToolResult"),
})
