"""The ModelClient protocol and the SDK-free types of a streamed model request: contents in, chunks out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.events import Usage
from gemini_tui.core.ground.parts import InlineDataPart, TextPart


@dataclass(frozen=True)
class ThoughtPart:
    """A thought summary the model streamed apart from its answer; kept in history with its signature."""

    text: str
    signature: bytes | None = None


@dataclass(frozen=True)
class FunctionCall:
    """One tool call the model asked for. `id` is ours when the model sends none."""

    id: str
    name: str
    args: dict[str, Any]
    signature: bytes | None = None  # Gemini's thought signature: must go back with the call
    problem: str | None = None  # why the call as sent cannot run (malformed args): answered with this error


@dataclass(frozen=True)
class FunctionResponse:
    """The answer to one FunctionCall: `response` is `{"output": ...}` or `{"error": ...}`; rich `parts`
    (images, PDF) travel beside it."""

    id: str
    name: str
    response: dict[str, Any]
    parts: tuple[TextPart | InlineDataPart, ...] = ()

    @property
    def text(self) -> str:
        """What the model reads: the output, or the error."""
        value = self.response.get("output", self.response.get("error", ""))
        return value if isinstance(value, str) else str(value)


ContentPart = TextPart | InlineDataPart | ThoughtPart | FunctionCall | FunctionResponse
Role = Literal["user", "model"]


@dataclass
class Content:
    """One entry of the history: the user's prompt or function responses (`user`), or a model turn (`model`)."""

    role: Role
    parts: list[ContentPart] = field(default_factory=list)


@dataclass(frozen=True)
class ModelRequest:
    """Everything one streaming request needs; `tools` are function declarations (dicts, Gemini-shaped)."""

    contents: tuple[Content, ...]
    system_instruction: str = ""
    tools: tuple[dict[str, Any], ...] = ()
    temperature: float | None = None
    response_schema: dict[str, Any] | None = None  # asks for JSON of this shape (one-shot requests)
    # Gemini's functionCallingConfig: mode (AUTO, ANY, NONE) and allowedFunctionNames (a hook's toolConfig)
    function_calling: FunctionCalling | None = None


@dataclass(frozen=True)
class FunctionCalling:
    mode: str  # AUTO | ANY | NONE
    allowed: tuple[str, ...] = ()


# What a stream yields, in order. A client retries on its own and says so with RetryChunk; after one with
# `discard_partial`, everything streamed before it for this request is void.
@dataclass(frozen=True)
class TextChunk:
    text: str


@dataclass(frozen=True)
class ThoughtChunk:
    text: str
    signature: bytes | None = None


@dataclass(frozen=True)
class CallChunk:
    call: FunctionCall


@dataclass(frozen=True)
class UsageChunk:
    usage: Usage


@dataclass(frozen=True)
class RetryChunk:
    attempt: int
    delay_s: float
    reason: str
    discard_partial: bool
    kind: str = "api_error"  # what failed, as ModelError.kind says it (quota, server, connection, ...)


@dataclass(frozen=True)
class CutShortChunk:
    """The answer ended for another reason than a natural stop (MAX_TOKENS, SAFETY, ...): what came is kept."""

    finish_reason: str


ModelChunk = TextChunk | ThoughtChunk | CallChunk | UsageChunk | RetryChunk | CutShortChunk


class ModelError(Exception):
    """A request that failed for good (after retries, or not retryable). `status` is the HTTP status if any."""

    def __init__(self, message: str, *, status: int | None = None, kind: str = "api_error") -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.kind = kind


@runtime_checkable
class ModelClient(Protocol):
    """A streaming model. `stream` yields chunks until the model's turn ends; it raises ModelError on failure
    and stops early (no error) when `abort_signal` is aborted."""

    model_name: str
    is_offline: bool

    def stream(self, request: ModelRequest, abort_signal: AbortSignal) -> AsyncIterator[ModelChunk]: ...
