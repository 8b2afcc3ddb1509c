"""The scheduler: each tool call through validating, approval, execution and its one FunctionResponse."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gemini_tui.core.approvals.grants import GrantScope, GrantStore, GrantStoreError
from gemini_tui.core.approvals.policy import ApprovalMode, ApprovalPolicy, Verdict
from gemini_tui.core.approvals.policy import Decision as PolicyDecision
from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import (
    ConfirmationDetails,
    ConfirmationOutcome,
    Decision,
    EditConfirmation,
    McpConfirmation,
)
from gemini_tui.core.ground.display import FileDiff
from gemini_tui.core.ground.events import (
    CallFinished,
    CallState,
    CallStateChanged,
    ConfirmationRequested,
    EventBus,
    Notice,
    ToolCallInfo,
    ToolOutputChunk,
)
from gemini_tui.core.ground.foreground import FOREGROUND
from gemini_tui.core.ground.model_api import FunctionCall, FunctionResponse
from gemini_tui.core.ground.parts import InlineDataPart, TextPart
from gemini_tui.core.ground.stats import CallDecision, SessionStats
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.tooling.needs import CallNeeds
from gemini_tui.core.tooling.registry import ToolRegistry
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind

if TYPE_CHECKING:
    from gemini_tui.core.approvals.hooks import Hooks

log = logging.getLogger(__name__)

# Kinds of tool that never change the workspace's files: no checkpoint before them.
NO_FILE_CHANGES = frozenset({ToolKind.read, ToolKind.search, ToolKind.think, ToolKind.fetch})

# How long a tool may take to notice an abort before its task is cancelled outright.
ABORT_GRACE_S = 2.0


HOOK_INPUT_NOTE = "[System] Tool input parameters were modified by a hook before execution."


@dataclass
class _Call:
    call: FunctionCall
    tool: BaseTool[Any] | None = None
    params: Any = None
    state: CallState = CallState.validating
    description: str = ""
    started_at: float = field(default_factory=time.time)
    ended_at: float | None = None
    ran_at: float | None = None  # monotonic: when the tool started running (None: it never ran)
    decision: CallDecision | None = None
    reviewed: FileDiff | None = None  # the diff the user last saw, for an approved edit
    modified_note: str = ""  # told to the model when the user changed the content (and it was written)
    modified_failed_note: str = ""  # told instead when the user's version could not be written
    response: FunctionResponse | None = None
    result: ToolResult | None = None
    requested_by: str = "model"
    policy: PolicyDecision | None = None  # what the approval policy answered, and the rule that decided
    needs: CallNeeds | None = None  # what the tool said the call needs (the policy remembers unreviewed edits)
    hook_changed_input: bool = False  # a BeforeTool hook rewrote the arguments (the model is told)
    answer: Decision | None = None  # the user's answer, when asked (leaving plan mode, ask_user)
    agent: str = ""  # the subagent that made the call ("" for the session's own model)
    parent_call_id: str = ""

    def info(self) -> ToolCallInfo:
        return ToolCallInfo(
            call_id=self.call.id, name=self.call.name, args=dict(self.call.args), state=self.state,
            description=self.description, display_name=self.tool.display_name if self.tool else self.call.name,
            started_at=self.started_at, ended_at=self.ended_at, requested_by=self.requested_by,
            decision=self.policy.verdict.value if self.policy else "", rule=self.policy.rule if self.policy else "",
            reason=self.policy.reason if self.policy else "",
            outcome=self.decision.value if self.decision is not None else None,
            agent=self.agent, parent_call_id=self.parent_call_id,
        )


WRITTEN_MAX_LINES = 400  # a longer diff of the user's version is not repeated to the model: it reads the file


def written_text(applied: FileDiff) -> str:
    """What the user's version wrote, for the model: the diff of the file before and after (or, when long, how
    to see it)."""
    lines = applied.diff.splitlines()
    if len(lines) > WRITTEN_MAX_LINES:
        return (f"What was written differs from the file before in {applied.lines_added} added and "
                f"{applied.lines_removed} removed lines; read {applied.file_path} to see it.")
    diff = applied.diff.replace("\tCurrent\n", "\tbefore\n", 1).replace("\tProposed\n", "\twritten\n", 1)
    return f"What was written (a diff of the file before and after):\n{diff}"


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

    Whether a call runs, asks or is refused is the `policy`'s answer alone (with its BeforeTool `hooks`);
    `interactive=False` (headless) refuses a call the policy would ask about."""

    def __init__(self, registry: ToolRegistry, bus: EventBus, stats: SessionStats, *,
                 policy: ApprovalPolicy | None = None, approval_mode: ApprovalMode | None = None,
                 interactive: bool = True, grants: GrantStore | None = None, hooks: Hooks | None = None) -> None:
        self.registry = registry
        self.bus = bus
        self.stats = stats
        self.policy = policy or ApprovalPolicy()
        if grants is not None:
            self.policy.grants = grants
        if approval_mode is not None:
            self.policy.set_mode(approval_mode)
        self.interactive = interactive
        # checkpoints: awaited around every approved call that can change files (edits, commands, MCP tools)
        self.before_change: Callable[[ToolCallInfo], Awaitable[None]] | None = None
        self.after_change: Callable[[ToolCallInfo], Awaitable[None]] | None = None
        self.hooks = hooks  # BeforeTool, AfterTool and Notification fire here
        self._notes: set[asyncio.Future[Any]] = set()  # Notification hooks still running
        # a subagent's own scheduler: its name (policy rules with `subagent = ...` match it; events carry it) and
        # the invoke_agent call it runs under
        self.agent = ""
        self.parent_call_id = ""

    @property
    def approval_mode(self) -> ApprovalMode:
        return self.policy.mode

    @approval_mode.setter
    def approval_mode(self, mode: ApprovalMode | str) -> None:
        self.policy.set_mode(mode)

    @property
    def grants(self) -> GrantStore:
        """"allow for the session" and "allow always" (the latter kept in ~/.gemini for this workspace)."""
        return self.policy.grants  # type: ignore[return-value]

    @property
    def always_allowed(self) -> set[str]:
        """Every granted rule in force (session and always)."""
        return set(self.grants.rules())

    async def run(self, calls: list[FunctionCall], abort_signal: AbortSignal) -> list[FunctionResponse]:
        records = [_Call(call, agent=self.agent, parent_call_id=self.parent_call_id) for call in calls]
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
            if record.tool is not None and record.tool.runs_alongside(record.params):
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
        if state is CallState.executing:
            record.ran_at = time.monotonic()
        if state.is_final:
            record.ended_at = time.time()
        self._publish(record)

    def _finish(self, record: _Call, result: ToolResult, state: CallState | None = None) -> None:
        note = record.modified_note if result.ok else record.modified_failed_note
        if note and isinstance(result.llm_content, str):  # in the result itself: the history shows what was sent
            result = dataclasses.replace(result, llm_content=result.llm_content + note)
            note = ""
        record.result = result
        record.response = function_response(record.call, result, note)
        final = state or (CallState.success if result.ok else CallState.error)
        self._set(record, final)
        # the tool's own time: not the wait for the user's approval, nor for the calls before it; 0 if it never ran
        duration_ms = int((time.monotonic() - record.ran_at) * 1000) if record.ran_at is not None else 0
        # Gemini CLI's tool statistics are the model's calls: what the user ran (`!command`, `@path`, `/memory
        # add`) is theirs, not a decision about a proposal, and counting it made /stats disagree with the turn
        if record.requested_by == "model":
            self.stats.record_call(record.call.name, result.ok, duration_ms, record.decision)
            if result.ok and record.needs is not None and record.policy is not None:
                self.policy.after_call(record.needs, record.policy, record.decision in (
                    CallDecision.accept, CallDecision.modify))
            if result.ok and isinstance(result.return_display, FileDiff):
                self.stats.lines_added += result.return_display.lines_added
                self.stats.lines_removed += result.return_display.lines_removed
        self.bus.publish(CallFinished(record.info(), result, duration_ms, record.response.text))

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
        await FOREGROUND.step()  # a key the user typed is drawn first
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

    def _take_hook_input(self, record: _Call, changed: dict[str, Any]) -> str | None:
        """A BeforeTool hook's `tool_input` merged over the model's arguments; why not, when they are invalid."""
        tool = record.tool
        assert tool is not None
        merged = {**record.call.args, **changed}
        params = tool.validate_params(merged)
        if isinstance(params, ToolError):
            return f"A BeforeTool hook changed the arguments into invalid ones: {params.message}"
        record.call.args.clear()
        record.call.args.update(merged)
        record.params = params
        record.hook_changed_input = True
        return None

    def _ways_to_run(self, tool: BaseTool, record: _Call, needs: CallNeeds, decision: PolicyDecision) -> str:
        from gemini_tui.core.approvals.remedies import ways_to_run

        if decision.rule.startswith("hook "):  # a hook asked: no setting outranks it
            return f"a change to {decision.rule}'s answer"
        ways = ways_to_run(self.policy, decision, tool.name, needs, self.registry.aliases(tool), record.requested_by,
                           args=record.call.args, interactive=self.interactive)
        return ", ".join(ways[:-1]) + f", or {ways[-1]}" if len(ways) > 1 else "".join(ways)

    def _refuse(self, record: _Call, message: str) -> bool:
        # refused before anyone decided (a deny rule, plan mode, headless): an error with no decision, as
        # Gemini CLI counts it; `reject` is kept for a user who said no
        self._finish(record, ToolResult.failure(ToolErrorKind.not_allowed, message))
        return False

    async def _approve(self, record: _Call, signal: AbortSignal) -> bool:
        """Asks the policy (and BeforeTool hooks), then the user when they say so; False when the call ended
        here (refused, cancelled, or not allowed)."""
        tool = record.tool
        assert tool is not None
        try:
            needs = tool.needs(record.params)
        except Exception as exc:  # a tool that cannot say what it needs is not run
            log.exception("%s could not describe its call", tool.name)
            return self._refuse(record, f"{tool.name} could not describe what it would do ({exc}); it was not run.")
        decision = self.policy.decide(tool.name, needs, self.registry.aliases(tool), record.requested_by,
                                      args=record.call.args, interactive=self.interactive, subagent=record.agent)
        if decision.verdict is not Verdict.deny and self.hooks is not None:
            decision = await self.hooks.before_tool(tool.name, record.call.args, decision, needs)
            changed = self.hooks.last_tool_input
            if decision.verdict is not Verdict.deny and isinstance(changed, dict) and changed:
                refused = self._take_hook_input(record, changed)  # the hook rewrote the arguments
                if refused is not None:
                    return self._refuse(record, refused)
                needs = tool.needs(record.params)
                decision = self.policy.decide(tool.name, needs, self.registry.aliases(tool), record.requested_by,
                                              args=record.call.args, interactive=self.interactive,
                                              subagent=record.agent)
        record.policy = decision
        record.needs = needs
        self._publish(record)
        if decision.verdict is Verdict.deny:
            if decision.rule.startswith("hook "):  # the hook's own words, as Gemini CLI gives them
                return self._refuse(record, decision.reason)
            return self._refuse(record, f"{decision.reason or 'Refused.'} (rule: {decision.rule})")
        if decision.verdict is Verdict.allow:
            # nobody was asked: no confirmation needed, an approval mode, an allow rule or a grant let it run
            record.decision = CallDecision.auto_accept
            return True
        if not self.interactive:
            # only a way out that would let this call run: auto_edit covers edits, never commands
            ways = self._ways_to_run(tool, record, needs, decision)
            why = f" {decision.reason}" if decision.reason else ""
            lift = (f"The user can allow it with {ways}." if ways else
                    "No setting lets it run unasked: only a person approving it in an interactive session can.")
            return self._refuse(record, (
                f'Tool "{tool.name}" needs the user\'s confirmation ({decision.rule}), which is not possible in '
                f'non-interactive mode with approval mode "{self.approval_mode}". It was not run.{why} {lift}'))
        try:
            details = await tool.should_confirm_execute(record.params, signal)
        except Exception as exc:
            self._finish(record, ToolResult.failure(
                ToolErrorKind.execution_failed, f"{tool.name} could not prepare its confirmation: {exc}"))
            return False
        if details is None:  # nothing to review: the call fails on its own (an edit of a missing text, ...)
            record.decision = CallDecision.auto_accept  # runs without asking anyone
            return True
        if isinstance(details, EditConfirmation):
            record.reviewed = details.file_diff
        answer = await self._ask(record, details, signal)
        if answer is None:  # the turn was cancelled while it waited: nobody answered, so no decision
            self._cancel(record, "The user cancelled the request while this call awaited approval.")
            return False
        return self._apply_decision(record, details, answer, decision)

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
        if self.hooks is not None and self.hooks.has("Notification"):  # observes only: never waited for
            note = asyncio.ensure_future(self.hooks.fire("Notification", {
                "notification_type": "ToolPermission", "message": f"Permission needed for {record.call.name}",
                "details": {"tool_name": record.call.name, "tool_input": dict(record.call.args)}},
                "ToolPermission"))
            self._notes.add(note)
            note.add_done_callback(self._notes.discard)
        self.bus.publish(ConfirmationRequested(record.info(), details, future))
        aborted = asyncio.ensure_future(signal.wait())
        try:
            await asyncio.wait({future, aborted}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            aborted.cancel()
        if not future.done() or signal.aborted:
            # a cancelled turn outranks an answer given with it (front ends clear their prompts as they cancel):
            # nobody decided, and the call does not run
            future.cancel()
            return None
        if future.cancelled():
            return None
        return future.result()

    def _apply_decision(self, record: _Call, details: ConfirmationDetails, decision: Decision,
                        policy: PolicyDecision) -> bool:
        tool = record.tool
        assert tool is not None
        record.answer = decision
        match decision.outcome:
            case ConfirmationOutcome.cancel if tool.answers_when_dismissed:
                record.decision = CallDecision.reject  # as Gemini CLI: it runs, and says it was dismissed
            case ConfirmationOutcome.cancel:
                record.decision = CallDecision.reject
                reason = (f" {decision.note}" if decision.note else "") + (
                    f" Their message: {decision.feedback}" if decision.feedback else "")
                self._cancel(record, f"The user rejected this {tool.name} call; it was not run.{reason}")
                return False
            case ConfirmationOutcome.proceed_always | ConfirmationOutcome.proceed_always_tool:
                # what to grant is the policy's answer: the real commands of a line, `edit` for any edit, ...
                self.grants.grant(policy.grants, GrantScope.session)
            case ConfirmationOutcome.proceed_always_and_save:
                try:
                    self.grants.grant(policy.grants, GrantScope.always)
                except (GrantStoreError, OSError) as exc:  # it still runs once: the user did allow this call
                    self.grants.grant(policy.grants, GrantScope.session)
                    self.bus.publish(Notice(f"Could not save the grant ({exc}); it holds for this session only.",
                                            "warning"))
            case ConfirmationOutcome.proceed_always_server if isinstance(details, McpConfirmation):
                self.grants.grant([f"mcp:{details.server_name}"], GrantScope.session)
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
        assert isinstance(details, EditConfirmation) and decision.new_content is not None
        # what is written is the user's version: the chat row, the history and the model say so, not the proposal
        reviewed = record.reviewed or details.file_diff
        applied = FileDiff.between(reviewed.file_path or details.file_path, original, decision.new_content,
                                   display_name=reviewed.file_name, is_new_file=reviewed.is_new_file)
        try:
            record.description = tool.describe_modified(new_params, applied)
        except Exception as exc:  # a description is cosmetic: never let it fail the call
            record.description = f"{tool.display_name} ({type(exc).__name__})"
        feedback = f" {decision.feedback}" if decision.feedback else ""
        record.modified_note = (f"\nThe user modified the proposed content before it was applied; the file now "
                                f"holds their version, not yours.{feedback}\n{written_text(applied)}")
        record.modified_failed_note = ("\nThe user had modified your proposal before approving it; nothing of it "
                                       "was written.")
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
        existed = not record.reviewed.is_new_file if record.reviewed is not None else None
        # whether the user approved this very call at a prompt, or yolo approves every call: a command's change to
        # a protected place is then kept (and still named), else put back (tools/shell/tool.py)
        context = CallContext(on_output=on_output, reviewed_content=reviewed, reviewed_existed=existed,
                              extra={"approved": record.decision is CallDecision.accept,
                                     "yolo": str(self.approval_mode) == "yolo"},
                              answer=record.answer, call_id=record.call.id)
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
        if record.hook_changed_input and result.ok and isinstance(result.llm_content, str):
            result = dataclasses.replace(result, llm_content=f"{result.llm_content}\n\n{HOOK_INPUT_NOTE}")
        if self.hooks is not None:
            result = await self.hooks.after_tool(tool.name, record.call.args, result)
        self._finish(record, result)
