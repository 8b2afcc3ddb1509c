"""The scheduler: each tool call through validating, approval, execution and its one FunctionResponse."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from gemini_tui.core.abort import AbortSignal
from gemini_tui.core.confirmation import (
    ConfirmationDetails,
    ConfirmationOutcome,
    Decision,
    EditConfirmation,
    ExecConfirmation,
    McpConfirmation,
)
from gemini_tui.core.display import FileDiff
from gemini_tui.core.events import (
    CallFinished,
    CallState,
    CallStateChanged,
    ConfirmationRequested,
    EventBus,
    Notice,
    ToolCallInfo,
    ToolOutputChunk,
)
from gemini_tui.core.grants import GrantScope, GrantStore, GrantStoreError
from gemini_tui.core.models.base import FunctionCall, FunctionResponse
from gemini_tui.core.parts import InlineDataPart, TextPart
from gemini_tui.core.registry import ToolRegistry, tool_rule_name
from gemini_tui.core.stats import CallDecision, SessionStats
from gemini_tui.core.tool import BaseTool, CallContext, ToolErrorKind, ToolKind, ToolResult

log = logging.getLogger(__name__)

# Kinds of tool that never change the workspace's files: no checkpoint before them.
NO_FILE_CHANGES = frozenset({ToolKind.read, ToolKind.search, ToolKind.think, ToolKind.fetch})

# How long a tool may take to notice an abort before its task is cancelled outright.
ABORT_GRACE_S = 2.0


class ApprovalMode(StrEnum):
    """`default` asks for edits and commands; `auto_edit` runs edits without asking; `plan` runs read-only
    tools only; `yolo` asks nothing."""

    default = "default"
    auto_edit = "auto_edit"
    plan = "plan"
    yolo = "yolo"

    def next(self) -> ApprovalMode:
        """The mode Shift+Tab cycles to: default -> auto_edit -> plan -> default. Yolo is never reached this
        way (it has its own key and flag); from yolo, Shift+Tab goes back to default."""
        order = [ApprovalMode.default, ApprovalMode.auto_edit, ApprovalMode.plan]
        return order[(order.index(self) + 1) % len(order)] if self in order else ApprovalMode.default


PLAN_MODE_REFUSAL = ("Plan mode is on: only read-only tools run, and {tool} changes files or runs commands, so it "
                     "was not run. Describe the change you would make instead; the user leaves plan mode with "
                     "Shift+Tab (or --approval-mode) when they want it carried out.")


def allow_rules_for(tool_name: str, details: ConfirmationDetails) -> set[str]:
    """The rules `tools.allowed` or an "allow for the session" must hold for this call to skip asking."""
    match details:
        case ExecConfirmation(root_commands=roots) if roots:
            return {f"{tool_name}({root})" for root in roots}
        case McpConfirmation(server_name=server, tool_name=name):
            return {tool_name, f"mcp:{server}", f"mcp:{server}/{name}"}
        case _:
            return {tool_name}


def granted_rules(tool_name: str, details: ConfirmationDetails) -> set[str]:
    """What "allow for the session" / "allow always" grants: for MCP only this tool of this server."""
    if isinstance(details, McpConfirmation):
        return {f"mcp:{details.server_name}/{details.tool_name}"}
    return allow_rules_for(tool_name, details)


def is_allowed(rules: Iterable[str], tool_name: str, details: ConfirmationDetails,
               aliases: Iterable[str] = ()) -> bool:
    """True when the granted `rules` cover this call. For shell, every root command must be covered (a bare
    tool name covers all); for MCP, the tool, its server or the tool of that server. `aliases` are the other
    names a rule may use for the tool (its class and display name, as tools.core and tools.exclude accept)."""
    rules = set(rules)
    if isinstance(details, ExecConfirmation) and details.hidden_commands:
        return False  # command substitution hides commands that no granted rule has vouched for
    names = {tool_name, *aliases}
    if names & rules:
        return True
    match details:
        case ExecConfirmation(root_commands=roots) if roots:
            return all(any(f"{name}({root})" in rules for name in names) for root in roots)
        case McpConfirmation(server_name=server, tool_name=name):
            return f"mcp:{server}" in rules or f"mcp:{server}/{name}" in rules
        case _:
            return False


def normalize_allowed(rules: Iterable[str]) -> set[str]:
    """`tools.allowed` entries as rules. `run_shell_command(git)` covers every `git` command here; a longer
    prefix such as `run_shell_command(git status)` is the shell tool's business (it then asks nothing)."""
    normalized: set[str] = set()
    for rule in rules:
        name = tool_rule_name(rule)
        inner = rule.strip()[len(name):].strip()
        argument = inner[1:-1].strip() if inner.startswith("(") and inner.endswith(")") else ""
        normalized.add(f"{name}({argument})" if argument else name)
    return normalized


@dataclass
class _Call:
    call: FunctionCall
    tool: BaseTool[Any] | None = None
    params: Any = None
    state: CallState = CallState.validating
    description: str = ""
    started_at: float = field(default_factory=time.time)
    ended_at: float | None = None
    decision: CallDecision | None = None
    reviewed: FileDiff | None = None  # the diff the user last saw, for an approved edit
    modified_note: str = ""  # told to the model when the user changed the content
    response: FunctionResponse | None = None
    result: ToolResult | None = None
    requested_by: str = "model"

    def info(self) -> ToolCallInfo:
        return ToolCallInfo(
            call_id=self.call.id, name=self.call.name, args=dict(self.call.args), state=self.state,
            description=self.description, display_name=self.tool.display_name if self.tool else self.call.name,
            started_at=self.started_at, ended_at=self.ended_at, requested_by=self.requested_by,
        )


def function_response(call: FunctionCall, result: ToolResult, note: str = "") -> FunctionResponse:
    """`llm_content` as the model receives it: a string as `{"output": ...}`, a failure as `{"error": ...}`,
    parts passed on beside a short output line."""
    content = result.llm_content
    if result.error is not None:
        text = content if isinstance(content, str) else result.error.message
        return FunctionResponse(call.id, call.name, {"error": text + note})
    if isinstance(content, str):
        return FunctionResponse(call.id, call.name, {"output": content + note})
    texts = [p.text for p in content if isinstance(p, TextPart)]
    blobs = tuple(p for p in content if isinstance(p, InlineDataPart))
    output = "\n".join(texts)
    if blobs:
        output = (output + "\n" if output else "") + f"Binary content provided ({len(blobs)} item(s))."
    return FunctionResponse(call.id, call.name, {"output": output + note}, blobs)


class Scheduler:
    """Runs the calls of one model turn. Read-only calls run concurrently; edits and commands one by one, in
    the order the model gave. Every call ends with exactly one FunctionResponse.

    `interactive=False` (headless) refuses a call that would need the user's confirmation."""

    def __init__(self, registry: ToolRegistry, bus: EventBus, stats: SessionStats, *,
                 approval_mode: ApprovalMode = ApprovalMode.default, allowed: Iterable[str] = (),
                 interactive: bool = True, grants: GrantStore | None = None) -> None:
        self.registry = registry
        self.bus = bus
        self.stats = stats
        self.approval_mode = approval_mode
        self.allowed = normalize_allowed(allowed)
        # "allow for the session" and "allow always" (the latter kept in ~/.gemini for this workspace)
        self.grants = grants if grants is not None else GrantStore(Path.cwd(), None)
        self.interactive = interactive
        # checkpoints: awaited around every approved call that can change files (edits, commands, MCP tools)
        self.before_change: Callable[[ToolCallInfo], Awaitable[None]] | None = None
        self.after_change: Callable[[ToolCallInfo], Awaitable[None]] | None = None

    @property
    def always_allowed(self) -> set[str]:
        """Every granted rule in force (session and always)."""
        return set(self.grants.rules())

    async def run(self, calls: list[FunctionCall], abort_signal: AbortSignal) -> list[FunctionResponse]:
        records = [_Call(call) for call in calls]
        await self._schedule(records, abort_signal)
        return [record.response for record in records if record.response is not None]

    async def run_for_user(self, name: str, args: dict[str, Any], abort_signal: AbortSignal,
                           requested_by: str = "user") -> ToolResult:
        """A call the user asked for (`!command`, `/memory add`, an `@path` read): validated, asked and run like
        the model's own calls, shown by the same events; returns its result."""
        record = _Call(FunctionCall(f"{requested_by}-{uuid.uuid4().hex[:8]}", name, args), requested_by=requested_by)
        await self._schedule([record], abort_signal)
        assert record.result is not None  # every scheduled call ends in _finish
        return record.result

    async def _schedule(self, records: list[_Call], abort_signal: AbortSignal) -> None:
        for record in records:
            self._publish(record)
        for record in records:
            self._validate(record)
        batch: list[_Call] = []
        for record in records:
            if record.response is not None:
                continue
            if record.tool is not None and record.tool.kind.is_read_only:
                batch.append(record)
                continue
            await self._run_concurrently(batch, abort_signal)
            batch = []
            await self._run_one(record, abort_signal)
        await self._run_concurrently(batch, abort_signal)

    async def _run_concurrently(self, batch: list[_Call], abort_signal: AbortSignal) -> None:
        if batch:
            async with asyncio.TaskGroup() as group:
                for record in batch:
                    group.create_task(self._run_one(record, abort_signal))

    def _publish(self, record: _Call) -> None:
        self.bus.publish(CallStateChanged(record.info()))

    def _set(self, record: _Call, state: CallState) -> None:
        record.state = state
        if state.is_final:
            record.ended_at = time.time()
        self._publish(record)

    def _finish(self, record: _Call, result: ToolResult, state: CallState | None = None) -> None:
        record.result = result
        record.response = function_response(record.call, result, record.modified_note)
        final = state or (CallState.success if result.ok else CallState.error)
        self._set(record, final)
        duration_ms = int(((record.ended_at or time.time()) - record.started_at) * 1000)
        self.stats.record_call(record.call.name, result.ok, duration_ms, record.decision)
        if result.ok and isinstance(result.return_display, FileDiff):
            self.stats.lines_added += result.return_display.lines_added
            self.stats.lines_removed += result.return_display.lines_removed
        self.bus.publish(CallFinished(record.info(), result, duration_ms))

    def _validate(self, record: _Call) -> None:
        if record.call.problem:  # malformed as the model sent it: its own error response, and nothing runs
            message = f"The call to {record.call.name} could not be read: {record.call.problem}."
            self._finish(record, ToolResult.failure(ToolErrorKind.invalid_params, message))
            return
        tool = self.registry.get(record.call.name)
        if tool is None:
            message = self.registry.unknown_tool_message(record.call.name)
            self._finish(record, ToolResult.failure(ToolErrorKind.tool_not_found, message))
            return
        record.tool = tool
        params = tool.validate_params(record.call.args)
        if not isinstance(params, tool.Params):
            self._finish(record, ToolResult(params.message, params.message, params))
            return
        record.params = params
        try:
            record.description = tool.get_description(params)
        except Exception as exc:  # a description is cosmetic: never let it fail the call
            record.description = f"{tool.display_name} ({type(exc).__name__})"
        self._publish(record)

    async def _run_one(self, record: _Call, abort_signal: AbortSignal) -> None:
        try:
            await self._run_one_call(record, abort_signal)
        except Exception as exc:  # a bug here must still answer the call, or the history sent next is invalid
            log.exception("scheduling %s failed", record.call.name)
            if record.response is None:
                self._finish(record, ToolResult.failure(
                    ToolErrorKind.execution_failed, f"{record.call.name} failed: {type(exc).__name__}: {exc}"))

    async def _run_one_call(self, record: _Call, abort_signal: AbortSignal) -> None:
        assert record.tool is not None
        signal = abort_signal.child()
        if signal.aborted:
            self._cancel(record, "The user cancelled the request before this call ran.")
            return
        if not await self._approve(record, signal):
            return
        self._set(record, CallState.scheduled)
        changes_files = record.tool.kind not in NO_FILE_CHANGES
        if changes_files and self.before_change is not None:
            await self.before_change(record.info())
        await self._execute(record, signal)
        if changes_files and self.after_change is not None:
            await self.after_change(record.info())

    def _cancel(self, record: _Call, message: str) -> None:
        self._finish(record, ToolResult.failure(ToolErrorKind.cancelled, message), CallState.cancelled)

    async def _approve(self, record: _Call, signal: AbortSignal) -> bool:
        """Asks when it must; False when the call ended here (refused, cancelled, or not allowed)."""
        tool = record.tool
        assert tool is not None
        if self.approval_mode is ApprovalMode.yolo:
            record.decision = CallDecision.auto_accept
            return True
        if self.approval_mode is ApprovalMode.plan and not tool.kind.is_read_only:
            record.decision = CallDecision.reject
            self._finish(record, ToolResult.failure(ToolErrorKind.not_allowed,
                                                    PLAN_MODE_REFUSAL.format(tool=tool.name)))
            return False
        try:
            details = await tool.should_confirm_execute(record.params, signal)
        except Exception as exc:
            self._finish(record, ToolResult.failure(
                ToolErrorKind.execution_failed, f"{tool.name} could not prepare its confirmation: {exc}"))
            return False
        if details is None:
            record.decision = CallDecision.accept
            return True
        if isinstance(details, EditConfirmation):
            record.reviewed = details.file_diff
        aliases = (type(tool).__name__, tool.display_name)
        if (self.approval_mode is ApprovalMode.auto_edit and isinstance(details, EditConfirmation)) or is_allowed(
                self.allowed | self.grants.rules(), tool.name, details, aliases):
            record.decision = CallDecision.auto_accept
            return True
        if not self.interactive:
            record.decision = CallDecision.reject
            # only a way out that would let this call run: auto_edit covers edits, never commands
            ways = "--approval-mode auto_edit, --yolo" if isinstance(details, EditConfirmation) else "--yolo"
            self._finish(record, ToolResult.failure(ToolErrorKind.not_allowed, (
                f'Tool "{tool.name}" needs the user\'s confirmation, which is not possible in non-interactive '
                f"mode with approval mode \"{self.approval_mode}\". It was not run. The user can allow it with "
                f"{ways}, or tools.allowed in settings.json.")))
            return False
        decision = await self._ask(record, details, signal)
        if decision is None:
            record.decision = CallDecision.reject
            self._cancel(record, "The user cancelled the request while this call awaited approval.")
            return False
        return self._apply_decision(record, details, decision)

    async def _ask(self, record: _Call, details: ConfirmationDetails, signal: AbortSignal) -> Decision | None:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Decision] = loop.create_future()
        if isinstance(details, EditConfirmation) and details.refresh is not None:
            inner = details.refresh

            async def refresh() -> FileDiff:
                # the UI re-reads the file: the diff it shows last is the one an approved edit must match
                record.reviewed = await inner()
                return record.reviewed

            details = dataclasses.replace(details, refresh=refresh)
        self._set(record, CallState.awaiting_approval)
        self.bus.publish(ConfirmationRequested(record.info(), details, future))
        aborted = asyncio.ensure_future(signal.wait())
        try:
            await asyncio.wait({future, aborted}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            aborted.cancel()
        if not future.done():
            future.cancel()
            return None
        if future.cancelled():
            return None
        return future.result()

    def _apply_decision(self, record: _Call, details: ConfirmationDetails, decision: Decision) -> bool:
        tool = record.tool
        assert tool is not None
        match decision.outcome:
            case ConfirmationOutcome.cancel:
                record.decision = CallDecision.reject
                reason = f" Their message: {decision.feedback}" if decision.feedback else ""
                self._cancel(record, f"The user rejected this {tool.name} call; it was not run.{reason}")
                return False
            case ConfirmationOutcome.proceed_always:
                self.grants.grant(granted_rules(tool.name, details), GrantScope.session)
            case ConfirmationOutcome.proceed_always_and_save:
                rules = granted_rules(tool.name, details)
                try:
                    self.grants.grant(rules, GrantScope.always)
                except (GrantStoreError, OSError) as exc:  # it still runs once: the user did allow this call
                    self.grants.grant(rules, GrantScope.session)
                    self.bus.publish(Notice(f"Could not save the grant ({exc}); it holds for this session only.",
                                            "warning"))
            case ConfirmationOutcome.proceed_always_server if isinstance(details, McpConfirmation):
                self.grants.grant([f"mcp:{details.server_name}"], GrantScope.session)
            case ConfirmationOutcome.proceed_always_tool if isinstance(details, McpConfirmation):
                self.grants.grant([f"mcp:{details.server_name}/{details.tool_name}"], GrantScope.session)
            case ConfirmationOutcome.modify:
                return self._modify(record, details, decision)
        record.decision = CallDecision.accept
        return True

    def _modify(self, record: _Call, details: ConfirmationDetails, decision: Decision) -> bool:
        tool = record.tool
        assert tool is not None
        record.decision = CallDecision.modify
        original = record.reviewed.original_content if record.reviewed else ""
        new_params = None
        if decision.new_content is not None and isinstance(details, EditConfirmation):
            new_params = tool.with_new_content(record.params, decision.new_content, original)
        if new_params is None:
            self._finish(record, ToolResult.failure(
                ToolErrorKind.not_allowed, f"The user wanted to modify this {tool.name} call, but this tool "
                "cannot apply modified content; it was not run."))
            return False
        record.params = new_params
        feedback = f" {decision.feedback}" if decision.feedback else ""
        record.modified_note = (f"\nThe user modified the proposed content before it was applied; the file now "
                                f"holds their version, not yours.{feedback}")
        return True

    async def _execute(self, record: _Call, signal: AbortSignal) -> None:
        tool = record.tool
        assert tool is not None
        loop = asyncio.get_running_loop()
        loop_thread = threading.get_ident()

        def on_output(chunk: str) -> None:
            event = ToolOutputChunk(record.call.id, chunk)
            if threading.get_ident() == loop_thread:
                self.bus.publish(event)
            else:
                loop.call_soon_threadsafe(self.bus.publish, event)

        reviewed = record.reviewed.original_content if record.reviewed is not None else None
        context = CallContext(on_output=on_output, reviewed_content=reviewed)
        self._set(record, CallState.executing)
        task = asyncio.ensure_future(tool.execute(record.params, signal, context))
        aborted = asyncio.ensure_future(signal.wait())
        try:
            await asyncio.wait({task, aborted}, return_when=asyncio.FIRST_COMPLETED)
            if not task.done():
                # give the tool a moment to stop on its own (a shell kills its process group), then cancel it
                await asyncio.wait({task}, timeout=ABORT_GRACE_S)
        except asyncio.CancelledError:
            signal.abort("the turn was cancelled")  # the tool stops its work (processes, threads) too
            task.cancel()
            raise
        finally:
            aborted.cancel()
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            self._cancel(record, f"The user cancelled this {tool.name} call while it ran.")
            return
        result = task.result()
        if signal.aborted and not result.ok:
            self._finish(record, result, CallState.cancelled)
            return
        self._finish(record, result)
