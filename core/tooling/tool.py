"""The tool API: BaseTool, ToolResult, errors with a kind, and the per-call context."""

from __future__ import annotations

import dataclasses
import json
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import ConfirmationDetails, Decision
from gemini_tui.core.ground.debug_log import where_details
from gemini_tui.core.ground.display import FileDiff
from gemini_tui.core.ground.parts import Part, TextPart
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.tooling.needs import CallNeeds
from gemini_tui.core.tooling.schema import clean_schema

log = logging.getLogger(__name__)


class ToolKind(StrEnum):
    """What a tool does; read-only kinds may run concurrently within one model turn."""

    read = "read"
    search = "search"
    edit = "edit"
    execute = "execute"
    fetch = "fetch"
    think = "think"
    other = "other"

    @property
    def is_read_only(self) -> bool:
        return self in (ToolKind.read, ToolKind.search, ToolKind.think)


@dataclass
class CallContext:
    """What the scheduler hands a running call besides its parameters.

    `on_output` receives live output (shell); `reviewed_content` is the original file content the user saw in
    an approved diff, so an edit tool can refuse to write over a change the user has not seen, and
    `reviewed_existed` whether the file was there then (None: not known; an empty content then means a new file)."""

    on_output: Callable[[str], None] | None = None
    reviewed_content: str | None = None
    reviewed_existed: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    answer: Decision | None = None  # what the user answered when asked (None: nobody was asked)
    call_id: str = ""  # the call's own id (a subagent's calls name the invoke_agent call they run under)


class ToolParams(BaseModel):
    """Base for every tool's parameter model. Unknown parameters are dropped (the result says so); Gemini CLI's
    own names for them, in `gemini_cli_names`, are renamed to ours (a field name) or accepted unused (None)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    gemini_cli_names: ClassVar[dict[str, str | None]] = {}
    _ignored: tuple[str, ...] = PrivateAttr(default=())

    @classmethod
    def accepted_names(cls) -> set[str]:
        """Every name a field answers to: its own, its alias, its validation aliases."""
        names: set[str] = set()
        for name, info in cls.model_fields.items():
            names.add(name)
            if info.alias:
                names.add(info.alias)
            choices = getattr(info.validation_alias, "choices", None)
            if isinstance(info.validation_alias, str):
                names.add(info.validation_alias)
            for choice in choices or ():
                if isinstance(choice, str):
                    names.add(choice)
        return names

    @classmethod
    def sort_out(cls, raw: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """The arguments with Gemini CLI's names renamed or dropped, and the unknown names that were dropped."""
        if cls.model_config.get("extra") == "allow":
            return dict(raw), []
        accepted = cls.accepted_names()
        args: dict[str, Any] = {}
        unknown: list[str] = []
        for key, value in raw.items():
            if key in accepted:
                args[key] = value
            elif key in cls.gemini_cli_names:
                target = cls.gemini_cli_names[key]
                if target is not None and target not in raw:
                    args[target] = value
            else:
                unknown.append(str(key))
        return args, unknown

    @property
    def ignored(self) -> tuple[str, ...]:
        return self._ignored


P = TypeVar("P", bound=ToolParams)


class BaseTool(ABC, Generic[P]):
    """One tool. Subclasses set the class attributes and implement `_execute`; `execute` never raises."""

    name: ClassVar[str]
    display_name: ClassVar[str]
    description: ClassVar[str]
    Params: ClassVar[type[ToolParams]]
    kind: ClassVar[ToolKind] = ToolKind.other
    # a "no" to its confirmation is an answer the tool reports itself (ask_user's dismissal), not a rejection
    answers_when_dismissed: ClassVar[bool] = False

    @property
    def parameter_schema(self) -> dict[str, Any]:
        return clean_schema(self.Params.model_json_schema(by_alias=True))

    def function_declaration(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.parameter_schema}

    def offered(self, mode: str, interactive: bool) -> bool:
        """Whether the model is offered this tool in approval mode `mode` (plan mode's tools come and go)."""
        return True

    def validate_params(self, raw: Mapping[str, Any] | None) -> P | ToolError:
        """Pydantic validation, then the tool's own checks; the error names the field and the way out."""
        args, unknown = self.Params.sort_out(raw or {})
        try:
            params = self.Params.model_validate(args)
        except ValidationError as exc:
            message = format_validation_error(self.name, exc)
            if unknown:  # a misspelt name is the likely cause of a missing one
                message += f" (unknown parameter(s) given: {', '.join(repr(name) for name in unknown)})"
            return ToolError(ToolErrorKind.invalid_params, message)
        params._ignored = tuple(unknown)
        problem = self.check_params(params)  # type: ignore[arg-type]
        if problem is not None:
            return problem
        return params  # type: ignore[return-value]

    def check_params(self, params: P) -> ToolError | None:
        """Checks beyond the schema (paths inside the root, ...). None when the parameters are fine."""
        return None

    def get_description(self, params: P) -> str:
        return f"{self.display_name} {json.dumps(params.model_dump(exclude_none=True), ensure_ascii=False)}"

    def system_section(self, model_name: str) -> str:
        """A section this tool adds to the system instruction while it is registered ("" for none)."""
        return ""

    def runs_alongside(self, params: P) -> bool:
        """Whether this call may run at the same time as the turn's other such calls (read-only ones)."""
        return self.kind.is_read_only

    def needs(self, params: P) -> CallNeeds:
        """What this call needs (paths it writes, the command it runs, the server it calls), for the approval
        policy, which alone decides whether it runs, asks or is refused."""
        return CallNeeds(read_only=self.kind.is_read_only, edit=self.kind is ToolKind.edit)

    async def should_confirm_execute(self, params: P, abort_signal: AbortSignal) -> ConfirmationDetails | None:
        """What the user reviews when the policy asks (a diff, the command, ...); None: nothing to review."""
        return None

    def with_new_content(self, params: P, new_content: str, original: str) -> P | None:
        """For edit tools: the parameters that write `new_content` instead (the user modified the edit)."""
        return None

    def describe_modified(self, params: P, applied: FileDiff) -> str:
        """The description of a call whose content the user modified: what `applied` writes, not the proposal."""
        return f"{self.get_description(params)} (your edit)"

    async def execute(self, params: P, abort_signal: AbortSignal, context: CallContext | None = None) -> ToolResult:
        if abort_signal.aborted:
            return ToolResult.failure(ToolErrorKind.cancelled, f"{self.name} was cancelled before it started.")
        try:
            return _with_ignored_note(await self._execute(params, abort_signal, context or CallContext()), params,
                                      self.Params)
        except PermissionError as exc:  # a file the user protected (e.g. read-only): their choice, not a bug
            where = f"{exc.filename}: " if exc.filename else ""
            return ToolResult.failure(ToolErrorKind.permission_denied,
                                      f"Permission denied: {where}{exc.strerror or exc}.")
        except Exception as exc:  # a tool bug must become a result the model and the user can read
            log.exception("tool %s failed", self.name)
            message = f"{self.name} failed: {type(exc).__name__}: {exc}"
            return ToolResult.failure(ToolErrorKind.execution_failed, message, message + where_details())

    @abstractmethod
    async def _execute(self, params: P, abort_signal: AbortSignal, context: CallContext) -> ToolResult: ...


def _with_ignored_note(result: ToolResult, params: ToolParams, model: type[ToolParams]) -> ToolResult:
    """Tells the model which of its parameters were not used, so a misspelt one does not go unnoticed."""
    if not params.ignored:
        return result
    names = ", ".join(sorted(model.model_fields))
    note = f"(Note: ignored unknown parameter(s) {', '.join(params.ignored)}; this tool takes {names}.)"
    content = result.llm_content
    added: str | list[Part] = (f"{content}\n\n{note}" if content else note) if isinstance(content, str) else [
        *content, TextPart(note)]
    return dataclasses.replace(result, llm_content=added)


def format_validation_error(tool_name: str, exc: ValidationError) -> str:
    problems = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(parameters)"
        problems.append(f"'{where}': {err['msg']}")
    return f"Invalid parameters for {tool_name}: " + "; ".join(problems)
