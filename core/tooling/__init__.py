"""The tool API: `BaseTool` and its parameters, what a call needs (`CallNeeds`, the words the
policy decides on), the registry, tools declared by others (discovered by command; MCP tools build on
`DeclaredTool`), schema cleaning and live progress.

Tools in `gemini_tui.tools` import this room and the ground floor; the registry receives tools and never
imports them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemini_tui.core.ground.lazy_face import lazy_face

if TYPE_CHECKING:
    from gemini_tui.core.tooling.declared_tool import DeclaredTool
    from gemini_tui.core.tooling.needs import CallNeeds
    from gemini_tui.core.tooling.registry import ToolRegistry
    from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams

__all__ = ["BaseTool", "CallContext", "CallNeeds", "DeclaredTool", "ToolKind", "ToolParams", "ToolRegistry"]

__getattr__ = lazy_face(__name__, {
    "gemini_tui.core.tooling.tool": ("BaseTool", "CallContext", "ToolKind", "ToolParams"),
    "gemini_tui.core.tooling.needs": ("CallNeeds",),
    "gemini_tui.core.tooling.declared_tool": ("DeclaredTool",),
    "gemini_tui.core.tooling.registry": ("ToolRegistry",),
})
