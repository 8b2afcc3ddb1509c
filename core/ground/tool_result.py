"""What a tool call gives back: `ToolResult` (for the model and for the user) and errors that carry a kind."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from gemini_tui.core.ground.display import Display, ErrorDisplay
from gemini_tui.core.ground.parts import Part


class ToolErrorKind(StrEnum):
    invalid_params = "invalid_params"
    path_outside_root = "path_outside_root"
    path_not_absolute = "path_not_absolute"
    file_not_found = "file_not_found"
    not_a_directory = "not_a_directory"
    is_a_directory = "is_a_directory"
    file_exists = "file_exists"
    binary_file = "binary_file"
    file_too_large = "file_too_large"
    permission_denied = "permission_denied"
    file_changed = "file_changed"
    edit_no_occurrence = "edit_no_occurrence"
    edit_occurrence_mismatch = "edit_occurrence_mismatch"
    edit_no_change = "edit_no_change"
    invalid_regex = "invalid_regex"
    tool_not_found = "tool_not_found"
    not_allowed = "not_allowed"
    cancelled = "cancelled"
    timeout = "timeout"
    execution_failed = "execution_failed"


@dataclass(frozen=True)
class ToolError:
    kind: ToolErrorKind
    message: str


@dataclass(frozen=True)
class ToolResult:
    """`llm_content` goes to the model as the FunctionResponse; `return_display` is shown to the user."""

    llm_content: str | list[Part]
    return_display: Display
    error: ToolError | None = None

    @classmethod
    def failure(cls, kind: ToolErrorKind, message: str, display: str | None = None) -> ToolResult:
        return cls(message, ErrorDisplay(kind.value, display or message), ToolError(kind, message))

    @property
    def ok(self) -> bool:
        return self.error is None
