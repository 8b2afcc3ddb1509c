"""The ground floor: the words every room shares, and nothing else.

Content parts, the model's request and stream types (`model_api`), events and their bus, display objects,
confirmation details, `ToolResult` and error kinds, the abort signal, the debug log and the settings' JSON
dialect. Each room above imports these downwards; nothing here imports a room, so no two rooms need each other
just to name a thing."""

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
