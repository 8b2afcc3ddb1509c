"""The Session: one conversation's turn loop (SPEC.md §2), approval mode, stats, memory and saved chats.

It is what `core.session_face.SessionFace` describes: front ends call only those verbs. The history and its
rules live in `core.conversation.Conversation`."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from gemini_tui.core.approvals.grants import GrantStore
from gemini_tui.core.approvals.policy import ApprovalMode, ApprovalPolicy, policy_from_settings
from gemini_tui.core.ground.abort import AbortSignal, finished_unless_aborted
from gemini_tui.core.ground.content import contents_from_json
from gemini_tui.core.ground.debug_log import where_details
from gemini_tui.core.ground.events import (
    ContextUsed,
    ErrorOccurred,
    Event,
    EventBus,
    HistoryCompressed,
    LoopSuspected,
    Notice,
    Retrying,
    TextDelta,
    ThoughtDelta,
    ToolCallInfo,
    TurnEndReason,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from gemini_tui.core.ground.model_api import (
    CallChunk,
    Content,
    ContentPart,
    CutShortChunk,
    FunctionCall,
    ModelClient,
    ModelError,
    ModelRequest,
    RetryChunk,
    TextChunk,
    ThoughtChunk,
    ThoughtPart,
    UsageChunk,
)
from gemini_tui.core.ground.parts import Part, TextPart
from gemini_tui.core.ground.tool_result import ToolResult
from gemini_tui.core.persistence.checkpoints import Checkpointer, RestoreOutcome
from gemini_tui.core.persistence.recorder import SessionRecorder
from gemini_tui.core.persistence.records import CheckpointRecord, LoadedSession, PromptMark, prompt_position
from gemini_tui.core.persistence.shadow_repo import RestorePlan
from gemini_tui.core.persistence.store import SessionStore, SessionSummary
from gemini_tui.core.processes.sandbox import Sandbox
from gemini_tui.core.session import compression
from gemini_tui.core.session.conversation import Conversation
from gemini_tui.core.session.face import McpServers, ToolDiscovery, ToolOutcome
from gemini_tui.core.session.loop_detection import LoopDetector
from gemini_tui.core.session.mentions import MentionError, ResourceReader, expand_mentions
from gemini_tui.core.session.scheduler import Scheduler, function_response
from gemini_tui.core.session.stats import SessionStats
from gemini_tui.core.setup.config import Settings
from gemini_tui.core.setup.context import Memory, load_memory
from gemini_tui.core.tooling.registry import ToolRegistry
from gemini_tui.core.tooling.tool import BaseTool

if TYPE_CHECKING:
    from gemini_tui.core.setup.auth import Auth
    from gemini_tui.core.setup.custom_commands import CustomCommand
    from gemini_tui.core.setup.extensions import Extension
    from gemini_tui.core.setup.user_setup import UserSetup

log = logging.getLogger(__name__)
T = TypeVar("T")
MCP_WAIT_S = 30.0  # the first prompt waits this long at most for MCP servers still connecting

SYSTEM_PROMPT = """You are gemini-tui, an agent working in a terminal on the user's project.
The project root is {root}. Every path you pass to a tool must be absolute and inside the root.
Use the tools to look before you change anything: list directories, read files, search. Keep edits small and
exact (the `replace` tool needs the exact text to replace, with enough context to be unique). Explain briefly
what you did. The user reviews edits and commands before they run and may reject or change them: respect that.
"""


class DirectoryGate(Protocol):
    """What the session needs of the tools' workspace gate: adding a directory to it (`/directory add`)."""

    def add_directory(self, directory: str) -> Path: ...


class Session:
    """Runs user prompts to the end, publishing every step on `bus`. One prompt (or `!command`) at a time.

    `interactive=False` (headless) refuses calls that would need the user's confirmation. `mcp` and `discovery`
    are the background services that add tools once started; `notices` are told to every subscriber."""

    def __init__(self, settings: Settings, registry: ToolRegistry, model: ModelClient, root: Path,
                 bus: EventBus | None = None, *, approval_mode: ApprovalMode = ApprovalMode.default,
                 interactive: bool = True, mcp: McpServers | None = None, discovery: ToolDiscovery | None = None,
                 notices: Sequence[Notice] = (), sandbox: Sandbox | None = None, policy: ApprovalPolicy | None = None,
                 hooks: Any = None, auth: Auth | None = None,
                 model_factory: Callable[[str], tuple[ModelClient, str | None]] | None = None,
                 workspace: DirectoryGate | None = None, setup: UserSetup | None = None) -> None:
        self.settings = settings
        self.registry = registry
        self.model = model
        self.root = Path(root)
        self.bus = bus or EventBus()
        self.session_id = str(uuid.uuid4())
        self.stats = SessionStats()
        self.conversation = Conversation()
        self.max_turns = settings.max_session_turns
        if policy is None:
            policy = policy_from_settings(settings, self.root, grants=GrantStore(self.root, settings.gemini_dir))
        policy.set_mode(approval_mode)  # PermissionError: yolo refused by security.disableYoloMode
        self.policy = policy
        self.grants: GrantStore = policy.grants  # type: ignore[assignment]
        self.scheduler = Scheduler(registry, self.bus, self.stats, policy=policy, interactive=interactive,
                                   hooks=hooks)
        self._memory: Memory | None = None
        self._notices: list[Notice] = []  # startup notices (settings problems, offline model) for late subscribers
        self._abort: AbortSignal | None = None
        self._busy = asyncio.Lock()
        self.mcp = mcp
        self.discovery = discovery
        # how commands run: bubblewrap, nothing, or refused (built by the wiring; the status line and /about)
        self.sandbox = sandbox or Sandbox()
        self._discovered: asyncio.Task[None] | None = None
        self._declared: tuple[tuple[tuple[int, str], ...], tuple[dict[str, Any], ...]] | None = None
        self._reply_was_empty = False  # the last model reply had no text and no calls
        self._started = False
        # how Gemini is reached (a core.auth.Auth, for `/auth`) and how another model is built (for `/model`)
        self.auth = auth
        self.model_factory = model_factory
        # what the user brings beyond settings.json (core.user_setup.UserSetup): extensions, custom commands by name,
        # the workspace's other directories, and the extensions' context files with the directory their imports
        # may read
        self.extensions: list[Extension] = list(setup.extensions) if setup else []
        self.commands: dict[str, CustomCommand] = dict(setup.commands) if setup else {}
        self.include_dirs: list[Path] = list(setup.include_dirs) if setup else []
        self.extra_context: list[tuple[Path, Path]] = [
            (path, ext.path) for ext in self.extensions for path in ext.context_files]
        if self.mcp is not None:
            self.mcp.commands = self.commands  # servers' prompts join as `/server:prompt`
        self.workspace = workspace  # the tools' gate (tools.workspace.Workspace): `/directory add` widens it
        self._background: set[asyncio.Task[None]] = set()
        # autosave (the wiring calls `enable_autosave`); `resumed` is the session file read back, for the front end
        # to redraw what the user saw
        self.store: SessionStore | None = None
        self.recorder: SessionRecorder | None = None
        self.resumed: LoadedSession | None = None
        self.checkpointer: Checkpointer | None = None  # set by the wiring unless general.checkpointing is off
        self.prompt_marks: list[PromptMark] = []  # every prompt's text and where it starts in the conversation
        self._compress_failed = -1  # the conversation revision at which compression could not help
        for notice in notices:
            self._notice(notice)

    # -- what the front ends read and set --------------------------------------------------------------------
    @property
    def approval_mode(self) -> ApprovalMode:
        return self.scheduler.approval_mode

    @approval_mode.setter
    def approval_mode(self, mode: ApprovalMode) -> None:
        self.policy.set_mode(mode)  # PermissionError when security.disableYoloMode refuses yolo

    @property
    def model_name(self) -> str:
        return self.model.model_name

    @property
    def is_offline(self) -> bool:
        return self.model.is_offline

    def set_model(self, name: str) -> str | None:
        """Switches the model for the next request (`/model NAME`); returns the notice the new client came with
        (e.g. the offline model's). The history stays."""
        if self.model_factory is None:
            raise RuntimeError("this session cannot switch models")
        self.model, notice = self.model_factory(name)
        return notice

    @property
    def always_allowed(self) -> set[str]:
        """Rules granted with "allow for the session" or "allow always": a tool name, `run_shell_command(git)`,
        `mcp:server`, `mcp:server/tool` (their provenance is in `grants`)."""
        return self.scheduler.always_allowed

    @property
    def is_running(self) -> bool:
        return self._busy.locked()

    @property
    def notices(self) -> Sequence[Notice]:
        return tuple(self._notices)

    @property
    def history(self) -> Conversation:
        return self.conversation

    @property
    def tools(self) -> Sequence[BaseTool[Any]]:
        return self.registry.tools

    def mcp_offers(self, server: str) -> tuple[list[str], list[str]]:
        connection = (getattr(self.mcp, "connections", None) or {}).get(server)
        if connection is None:
            return [], []
        return ([p.name for p in getattr(connection, "prompts", None) or []],
                [r.uri for r in getattr(connection, "resources", None) or []])

    def resource_mentions(self) -> dict[str, str]:
        return self.mcp.resource_mentions() if self.mcp is not None else {}

    def _notice(self, notice: Notice) -> None:
        self._notices.append(notice)
        self.bus.publish(notice)

    def report(self, message: str, level: str = "warning") -> None:
        """A notice from the wiring (a session that could not be resumed, ...), kept for late subscribers."""
        self._notice(Notice(message, level))

    # -- background services (MCP, command discovery) ----------------------------------------------------------
    async def start(self, wait_s: float | None = 0.0) -> None:
        """Starts connecting MCP servers and registers discovered tools when discovery ends (a front end may call
        this early, without waiting). `send` calls it too, waiting up to `MCP_WAIT_S` so the first request
        already offers those tools."""
        if not self._started:
            self._started = True
            if self.mcp is not None:
                self.mcp.start()
            if self.discovery is not None:
                self._discovered = asyncio.ensure_future(self._register_discovered())
        if wait_s is not None and wait_s <= 0:
            return
        waits: list[Awaitable[object]] = []
        if self.mcp is not None:
            waits.append(self.mcp.wait_ready(wait_s))
        if self._discovered is not None and not self._discovered.done():
            waits.append(asyncio.wait({self._discovered}, timeout=wait_s))
        await asyncio.gather(*waits)

    async def _register_discovered(self) -> None:
        try:
            found = await self.discovery.result()
        except Exception as exc:
            log.exception("tool discovery failed")
            problems = [f"Tool discovery failed: {type(exc).__name__}: {exc}"]
        else:
            problems = list(found.errors)
            for tool in found.tools:
                if not self.registry.register(tool) and tool.name in self.registry:
                    problems.append(f"Discovered tool {tool.name} skipped: a tool with this name is already "
                                    "registered.")
        for text in problems:
            self._notice(Notice(text, "warning"))

    async def close(self) -> None:
        """Disconnects MCP servers and ends a discovery command still running; call once when the front end
        exits."""
        if self.discovery is not None:
            self.discovery.stop()
        if self._discovered is not None:
            self._discovered.cancel()
        if self.mcp is not None:
            await self.mcp.close()

    # -- memory (GEMINI.md) ----------------------------------------------------------------------------------
    @property
    def memory(self) -> Memory:
        """What every GEMINI.md says, as the model reads it (read on first use)."""
        return self._memory if self._memory is not None else self.refresh_memory()

    def refresh_memory(self) -> Memory:
        """Re-reads every GEMINI.md (`/memory refresh`, after save_memory)."""
        before = set(self._memory.problems) if self._memory is not None else set()
        self._memory = load_memory(self.root, self.settings.home, self.settings.context_file_names,
                                   include_dirs=self.include_dirs, extra_files=self.extra_context)
        for problem in self._memory.problems:
            if problem not in before:  # said once, not at every reload
                self.bus.publish(Notice(f"GEMINI.md import: {problem}", "warning"))
        return self._memory

    reload_memory = refresh_memory

    async def add_memory(self, fact: str) -> ToolOutcome:
        """`/memory add`: save_memory through the scheduler (shown and asked like any call); the tool re-reads
        the memory when it wrote."""
        result = await self._run_for_user("save_memory", {"fact": fact})
        if result is None:
            return ToolOutcome("The save_memory tool is not enabled.", False, ran=False)
        return _outcome(result)

    def system_instruction(self) -> str:
        memory = self.memory
        prompt = SYSTEM_PROMPT.format(root=self.root)
        if not memory.text:
            return prompt
        return f"{prompt}\n# Context from the user's GEMINI.md files\n\n{memory.text}\n"

    # -- the turn loop ---------------------------------------------------------------------------------------
    def cancel(self) -> None:
        """Stops the stream and every unfinished call of the running prompt (each still gets its response)."""
        if self._abort is not None:
            self._abort.abort("cancelled by the user")

    async def send(self, prompt: str | list[Part]) -> TurnEndReason:
        """Runs one user prompt until the model ends its turn with no calls (or stops, fails, is cancelled).
        In a text prompt, `@path` mentions are read through `read_many_files` and sent after the text."""
        async with self._busy:
            abort = self._abort = AbortSignal()
            await _unless_aborted(self.start(MCP_WAIT_S), abort)
            prompt_id = uuid.uuid4().hex[:12]
            shown = prompt if isinstance(prompt, str) else "".join(p.text for p in prompt if isinstance(p, TextPart))
            self.prompt_marks.append(PromptMark(shown, prompt_position(self.conversation)))
            self.bus.publish(TurnStarted(prompt_id, shown))
            try:
                parts = await self._prompt_parts(prompt, abort)
                self.conversation.append_user(parts)
                self._autosave()
                reason, message = await self._run(abort)
            except MentionError as exc:
                # nothing was sent: the prompt stays out of the conversation
                reason, message = ((TurnEndReason.cancelled, "Request cancelled.") if abort.aborted
                                   else (TurnEndReason.error, str(exc)))
                if not abort.aborted:
                    self.bus.publish(ErrorOccurred(message, "mention"))
            except asyncio.CancelledError:
                # the front end cancelled the task itself (not through cancel()): stop the calls, keep the history
                # valid, and still end the turn for every subscriber
                abort.abort("the task running the prompt was cancelled")
                self._answer_dangling_calls("The request was cancelled before this call ran.")
                self.bus.publish(TurnFinished(prompt_id, TurnEndReason.cancelled, "Request cancelled."))
                raise
            except Exception as exc:  # a bug in the loop must end the prompt visibly, not hang the front end
                log.exception("the turn loop failed")
                reason, message = TurnEndReason.error, (f"Internal error: {type(exc).__name__}: {exc}"
                                                        f"{where_details()}")
                self._answer_dangling_calls(message)
                self.bus.publish(ErrorOccurred(message, "internal"))
            finally:
                self._abort = None
                self._autosave(end=True)
            self.bus.publish(TurnFinished(prompt_id, reason, message))
            return reason

    def add_directory(self, directory: str) -> Path:
        """`/directory add`: `directory` becomes part of the workspace for every tool, `@path` and GEMINI.md
        imports. Raises ValueError when it is not a directory."""
        if self.workspace is None:
            raise ValueError("this session has no workspace to widen")
        try:
            added = Path(self.workspace.add_directory(directory))
        except Exception as exc:  # the gate's WorkspaceError: core does not import tools
            raise ValueError(str(exc)) from exc
        if added not in self.include_dirs and added != self.root:
            self.include_dirs.append(added)
            sandbox = getattr(self, "sandbox", None)
            if sandbox is not None:  # commands in the sandbox may write there too, like in the root
                sandbox.add_writable([added])
            if self.mcp is not None and hasattr(self.mcp, "roots_changed"):  # servers see the new root
                with contextlib.suppress(RuntimeError):  # no running loop: they ask for roots when they need them
                    task = asyncio.get_running_loop().create_task(self.mcp.roots_changed())
                    self._background.add(task)
                    task.add_done_callback(self._background.discard)
        return added

    async def send_command(self, line: str) -> TurnEndReason | None:
        """`/name args` for a custom command (or an MCP prompt): its prompt expanded (files read, commands run
        through the scheduler, so asked like any other) and sent. None when `line` names no such command.
        A failed expansion (a refused command, a missing file, a server's error) is a failed turn: said, nothing
        sent. MCP servers still connecting are waited for (bounded), so their prompts can be found."""
        from gemini_tui.core.setup.custom_commands import CommandError, expand, split_invocation

        name, args = split_invocation(line)
        if name not in self.commands and self.mcp is not None:
            await self.start(MCP_WAIT_S)
        command = self.commands.get(name)
        if command is None:
            return None
        abort = self._abort = AbortSignal()
        try:
            if hasattr(command, "expand"):  # an MCP prompt: the server writes the messages
                try:
                    parts = await command.expand(args)
                except Exception as exc:  # bad arguments, a server gone or failing: said, nothing sent
                    raise CommandError(str(exc) or type(exc).__name__) from exc
            else:
                parts = await expand(command, args, line, registry=self.registry, run_calls=self.scheduler.run,
                                     abort=abort)
        except CommandError as exc:
            # a whole (failed) turn, so every front end ends it as it ends any other
            prompt_id = uuid.uuid4().hex[:12]
            message = f"/{name} was not sent: {exc}"
            self.bus.publish(TurnStarted(prompt_id, line))
            self.bus.publish(ErrorOccurred(message, "command_failed"))
            self.bus.publish(TurnFinished(prompt_id, TurnEndReason.error, message))
            return TurnEndReason.error
        finally:
            self._abort = None
        return await self.send(parts)

    def _answer_dangling_calls(self, why: str) -> None:
        """A model turn whose calls got no responses (the loop was cut short) gets error responses for them."""
        self.conversation.answer_pending(why)

    async def _prompt_parts(self, prompt: str | list[Part], abort: AbortSignal) -> list[ContentPart]:
        if not isinstance(prompt, str):
            return list(prompt)
        reader = None
        if "read_many_files" in self.registry:
            async def reader(args: dict[str, Any]) -> ToolResult:
                return await self.scheduler.run_for_user("read_many_files", args, abort, requested_by="mention")
        expanded = await expand_mentions(prompt, reader, self._resource_reader())
        return [TextPart(expanded)] if isinstance(expanded, str) else list(expanded)

    def _resource_reader(self) -> ResourceReader | None:
        """`@server:uri` mentions of connected MCP servers' resources (read with resources/read)."""
        owner = getattr(self.mcp, "resource_owner", None)
        if owner is None:
            return None

        async def read(mention: str) -> list[Part]:
            from gemini_tui.core.mcp.prompts import read_resource

            found = owner(mention)
            if found is None:
                raise MentionError(f"@{mention}: no connected MCP server by that name.")
            try:
                return await read_resource(*found)
            except Exception as exc:  # the server's error (unknown URI, ...), said as the mention's
                raise MentionError(f"@{mention}: the MCP server could not read it ({exc}).") from exc

        return ResourceReader(lambda mention: owner(mention) is not None, read)

    async def _run_for_user(self, tool_name: str, args: dict[str, Any]) -> ToolResult | None:
        """One tool call the user asked for, through the scheduler, one at a time with prompts (None: the tool
        is disabled)."""
        async with self._busy:
            if tool_name not in self.registry:
                return None
            abort = self._abort = AbortSignal()
            try:
                return await self.scheduler.run_for_user(tool_name, args, abort)
            finally:
                self._abort = None

    async def run_shell(self, command: str) -> ToolOutcome:
        """A `!command`: run_shell_command through the scheduler (asked like the model's own call, shown in the
        queue); the command and its output join the conversation, so the model sees them with the next prompt."""
        result = await self._run_for_user("run_shell_command", {"command": command})
        if result is None:
            return ToolOutcome("The shell tool is disabled by the settings.", False, ran=False)
        outcome = _outcome(result)
        self.conversation.append_user([TextPart(
            f"I ran the following shell command:\n```sh\n{command}\n```\n\n"
            f"This produced the following result:\n```\n{outcome.text}\n```\n")])
        self._autosave(end=True)
        return outcome

    async def _run(self, abort: AbortSignal) -> tuple[TurnEndReason, str]:
        detector = LoopDetector(enabled=not self.settings.disable_loop_detection)
        empty_replies = 0
        for _ in range(self.max_turns):
            outcome = await self._stream_turn(abort, detector)
            if isinstance(outcome, tuple):
                return outcome
            calls = outcome
            if not calls and self._reply_was_empty:
                # an empty reply would end the turn with nothing shown: ask once more, then say so
                empty_replies += 1
                if empty_replies <= EMPTY_REPLY_RETRIES:
                    self.bus.publish(Notice("The model sent an empty reply; asking again.", "warning"))
                    continue
                message = ("The model sent an empty reply twice; nothing to show. Send the prompt again or "
                           "rephrase it.")
                self.bus.publish(ErrorOccurred(message, "empty_reply"))
                return TurnEndReason.error, message
            if not calls:
                return TurnEndReason.completed, ""
            for call in calls:
                if (loop := detector.check_call(call)) is not None:
                    self._answer_unrun(calls, loop)
                    self.bus.publish(ErrorOccurred(loop, "loop_detected"))
                    return TurnEndReason.loop_detected, loop
            responses = await self.scheduler.run(calls, abort)
            self.conversation.append_responses(responses)
            self._autosave()
            if abort.aborted:
                return TurnEndReason.cancelled, "Request cancelled."
        message = (f"Stopped after {self.max_turns} model turns for one prompt (model.maxSessionTurns). "
                   "Send another prompt to continue.")
        self.bus.publish(ErrorOccurred(message, "max_turns"))
        return TurnEndReason.max_turns, message

    def _declarations(self) -> tuple[dict[str, Any], ...]:
        """The registry's function declarations, rebuilt only when its tools change (MCP servers connect late)."""
        key = tuple((id(tool), tool.name) for tool in self.registry.tools)
        if self._declared is None or self._declared[0] != key:
            self._declared = key, tuple(self.registry.function_declarations())
        return self._declared[1]

    def _answer_unrun(self, calls: list[FunctionCall], why: str) -> None:
        """Every FunctionCall needs its FunctionResponse, even when the loop stops before running it."""
        self.conversation.answer_pending(why)

    async def _stream_turn(self, abort: AbortSignal,
                           detector: LoopDetector) -> list[FunctionCall] | tuple[TurnEndReason, str]:
        """One model request. Returns its calls, or why the prompt ends here."""
        await self._maybe_compress(abort)
        request = ModelRequest(self.conversation.snapshot(), self.system_instruction(), self._declarations())
        parts: list[ContentPart] = []
        calls: list[FunctionCall] = []
        started = time.monotonic()
        stopped: tuple[TurnEndReason, str] | None = None
        try:
            async for chunk in until_aborted(self.model.stream(request, abort), abort):
                if abort.aborted:
                    break
                match chunk:
                    case TextChunk(text=text):
                        _append_text(parts, text)
                        self.bus.publish(TextDelta(text))
                        if (loop := detector.check_text(text)) is not None:
                            if await self._user_keeps_going(abort):
                                detector.keep_going()
                                continue
                            stopped = TurnEndReason.loop_detected, loop
                            self.bus.publish(ErrorOccurred(loop, "loop_detected"))
                            break
                    case ThoughtChunk(text=text, signature=signature):
                        parts.append(ThoughtPart(text, signature))
                        self.bus.publish(ThoughtDelta(text))
                    case CallChunk(call=call):
                        parts.append(call)
                        calls.append(call)
                    case UsageChunk(usage=usage):
                        self.stats.model(self.model_name).tokens.add(usage)
                        self.bus.publish(UsageUpdated(self.model_name, usage, self.stats.total_tokens))
                        if usage.prompt_tokens:  # the server's count beats our estimate for the context share
                            self.bus.publish(ContextUsed(usage.prompt_tokens + usage.candidates_tokens,
                                                         self._context_window()))
                    case CutShortChunk(finish_reason=finish):
                        self.bus.publish(Notice(cut_short_message(finish), "warning"))
                    case RetryChunk(attempt=attempt, delay_s=delay, reason=why, discard_partial=discard, kind=kind):
                        # the failed attempt was a request too, and an error: count it as one
                        self.stats.record_request(self.model_name, _ms_since(started), kind)
                        started = time.monotonic()
                        if discard:
                            parts, calls = [], []
                        self.bus.publish(Retrying(attempt, delay, why, discard))
        except ModelError as exc:
            self.stats.record_request(self.model_name, _ms_since(started), exc.kind)
            self.bus.publish(ErrorOccurred(exc.message, exc.kind))
            self._keep_partial(parts)
            return TurnEndReason.error, exc.message
        self.stats.record_request(self.model_name, _ms_since(started))
        if abort.aborted or stopped is not None:
            self._keep_partial(parts)
            return stopped or (TurnEndReason.cancelled, "Request cancelled.")
        self._reply_was_empty = not calls and not any(isinstance(p, TextPart) and p.text.strip() for p in parts)
        if self._reply_was_empty:
            return calls  # nothing to keep (a thought alone would leave the history ending on the model)
        self.conversation.append_model(parts)
        self._autosave()
        return calls

    async def _user_keeps_going(self, abort: AbortSignal) -> bool:
        """In the app, a suspected text loop is the user's call: True when they say keep going. Headless runs
        (nobody to ask) stop."""
        if not self.scheduler.interactive or abort.aborted:
            return False
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.bus.publish(LoopSuspected("The model seems to repeat itself.", future))
        if not await finished_unless_aborted(future, abort) or future.cancelled():
            return False
        return future.result() is True

    def _keep_partial(self, parts: list[ContentPart]) -> None:
        """Text the user saw stays in history; calls that never ran are dropped with it (they have no answer)."""
        self.conversation.keep_partial(parts)

    # -- context compression ----------------------------------------------------------------------------------
    async def compress(self) -> compression.Compression | None:
        """`/compress`: condenses the older turns now, whatever the threshold (None: nothing to condense)."""
        async with self._busy:
            abort = self._abort = AbortSignal()
            try:
                return await self._maybe_compress(abort, force=True)
            finally:
                self._abort = None
                self._autosave()

    def _context_window(self) -> int:
        """A client that knows its window (a local model's, from its server or settings) says so."""
        return getattr(self.model, "context_window", None) or compression.context_window(self.model_name)

    async def _maybe_compress(self, abort: AbortSignal, *, force: bool = False) -> compression.Compression | None:
        """Before a request: past `model.compressionThreshold` of the context window, large old tool outputs are
        shortened first, and if that is not enough the older turns are summarised by the model (a request of its
        own, with no tools); the newest ~30% stays verbatim and no call is parted from its response."""
        window = self._context_window()
        before = compression.estimate_tokens(self.conversation)
        limit = self.settings.compression_threshold * window
        if not force and (before < limit or self._compress_failed == self.conversation.revision):
            self.bus.publish(ContextUsed(before, window))
            return None
        split = compression.split_point(self.conversation)
        if split <= 0:
            self._compress_failed = self.conversation.revision
            self.bus.publish(ContextUsed(before, window))
            return None
        shortened, changed = compression.shorten_old_outputs(self.conversation, split)
        summarised = False
        if changed and (compression.estimate_tokens(shortened) < limit and not force):
            new = shortened
        else:
            summary = await self._summarise(shortened[:split], abort)
            if summary is None:
                self._compress_failed = self.conversation.revision
                self.bus.publish(ContextUsed(before, window))
                return None
            new = [*compression.replacement(summary), *shortened[split:]]
            summarised = True
        self.conversation.load(new)
        after = compression.estimate_tokens(self.conversation)
        result = compression.Compression(before, after, summarised)
        self.stats.compressions += 1
        self.stats.tokens_saved += result.saved
        if self.recorder is not None:
            self.recorder.add({"kind": "compressed", "before": before, "after": after, "summarised": summarised})
        self.bus.publish(HistoryCompressed(before, after, summarised))
        self.bus.publish(ContextUsed(after, window))
        return result

    async def _summarise(self, older: Sequence[Content], abort: AbortSignal) -> str | None:
        request = ModelRequest(compression.summary_request_contents(older), compression.COMPRESSION_INSTRUCTION, ())
        texts: list[str] = []
        started = time.monotonic()
        try:
            async for chunk in until_aborted(self.model.stream(request, abort), abort):
                match chunk:
                    case TextChunk(text=text):
                        texts.append(text)
                    case UsageChunk(usage=usage):
                        self.stats.model(self.model_name).tokens.add(usage)
                    case RetryChunk(discard_partial=True):
                        texts = []
        except ModelError as exc:
            self.stats.record_request(self.model_name, _ms_since(started), exc.kind)
            self.bus.publish(Notice(f"Compressing the conversation failed ({exc.message}); it goes on uncompressed.",
                                    "warning"))
            return None
        self.stats.record_request(self.model_name, _ms_since(started))
        summary = "".join(texts).strip()
        if abort.aborted or not summary:
            return None
        return summary

    # -- checkpoints, restore, undo and rewind ----------------------------------------------------------------
    def enable_checkpoints(self, checkpointer: Checkpointer) -> None:
        """Snapshots before every call that can change files (the wiring gives the shadow repository)."""
        self.checkpointer = checkpointer
        self.scheduler.before_change = self._checkpoint_before
        self.scheduler.after_change = self._checkpoint_after

    async def _checkpoint_before(self, call: ToolCallInfo) -> None:
        assert self.checkpointer is not None
        position = self.prompt_marks[-1].position if self.prompt_marks else len(self.conversation)
        record = await self.checkpointer.before(call, self.session_id, position, max(0, len(self.prompt_marks) - 1))
        if record is not None and self.recorder is not None:
            self.recorder.add({"kind": "checkpoint", "id": record.id, "tool": record.tool,
                               "description": record.description, "created": record.created,
                               "position": record.position, "prompt_index": record.prompt_index})
            self._autosave()

    async def _checkpoint_after(self, call: ToolCallInfo) -> None:
        assert self.checkpointer is not None
        await self.checkpointer.after()
        self._record_agent_state()

    def _record_agent_state(self) -> None:
        """Kept in the session so that, resumed, a restore still knows which changes were made by hand."""
        if self.checkpointer is not None and self.checkpointer.agent_state is not None and self.recorder is not None:
            self.recorder.add({"kind": "agent_state", "tree": self.checkpointer.agent_state})

    def list_checkpoints(self) -> list[CheckpointRecord]:
        return list(self.checkpointer.records) if self.checkpointer is not None else []

    def _checkpoints(self) -> Checkpointer:
        if self.checkpointer is None:
            raise LookupError("Checkpoints are off (general.checkpointing.enabled is false).")
        if self.checkpointer.disabled and not self.checkpointer.records:
            raise LookupError(f"No checkpoints: {self.checkpointer.disabled}")
        if self.is_running:
            raise RuntimeError("A turn is running: wait for it to end (or press Esc to cancel it), then restore.")
        return self.checkpointer

    async def plan_restore(self, which: str) -> tuple[CheckpointRecord, RestorePlan]:
        """What `/restore <which>` would change (nothing is written yet)."""
        checkpoints = self._checkpoints()
        record = checkpoints.find(which)
        return record, await checkpoints.plan(record)

    async def restore(self, record: CheckpointRecord, plan: RestorePlan, *,
                      conversation: bool = True) -> RestoreOutcome:
        """Puts the files of `plan` back and (with `conversation`) rewinds to the prompt that led to the call."""
        outcome = await self._checkpoints().restore(plan)
        self._record_agent_state()
        if conversation:
            self.rewind_conversation(record.prompt_index, fallback_position=record.position)
        return outcome

    async def plan_undo(self) -> tuple[CheckpointRecord, RestorePlan]:
        checkpoints = self._checkpoints()
        if not checkpoints.records:
            raise LookupError("Nothing to undo: no file-changing call has run in this session.")
        record = checkpoints.records[-1]
        return record, await checkpoints.plan(record)

    async def undo(self, record: CheckpointRecord, plan: RestorePlan) -> RestoreOutcome:
        """`/undo`: the files changed by the last file-changing call go back; the model is told with the next
        prompt. The checkpoint is used up, so another `/undo` goes one further back."""
        checkpoints = self._checkpoints()
        outcome = await checkpoints.restore(plan)
        self._record_agent_state()
        checkpoints.records = [r for r in checkpoints.records if r.id != record.id]
        self.conversation.append_user([TextPart(
            f"[The user undid the last change: {record.tool} ({record.description}). Files back as before it: "
            f"{', '.join(c.path for c in plan.changes) or 'none changed'}.]")])
        if self.recorder is not None:
            self.recorder.add({"kind": "uncheckpoint", "id": record.id})
            self._autosave()
        return outcome

    def rewind_conversation(self, prompt_index: int, *, fallback_position: int | None = None) -> str:
        """Drops prompt number `prompt_index` (0-based) and everything after it; returns its text."""
        if self.is_running:
            raise RuntimeError("A turn is running: wait for it to end (or press Esc to cancel it), then rewind.")
        if prompt_index < len(self.prompt_marks):
            mark = self.prompt_marks[prompt_index]
            position, text = mark.position, mark.text
        elif fallback_position is not None:
            position, text = fallback_position, ""
        else:
            raise LookupError(f"No prompt {prompt_index + 1} in this session.")
        self.conversation.truncate_to(min(position, len(self.conversation)))
        del self.prompt_marks[prompt_index:]
        if self.checkpointer is not None:
            self.checkpointer.forget_from(prompt_index)
        if self.recorder is not None:
            self.recorder.prompts = min(self.recorder.prompts, prompt_index)
            self.recorder.add({"kind": "rewind", "prompt": prompt_index})
            self._autosave()
        return text

    async def plan_rewind_files(self, prompt_index: int) -> tuple[CheckpointRecord, RestorePlan] | None:
        """The files as they were before prompt `prompt_index` changed anything (None: it changed nothing)."""
        checkpoints = self._checkpoints()
        later = [r for r in checkpoints.records if r.prompt_index >= prompt_index]
        if not later:
            return None
        return later[0], await checkpoints.plan(later[0])

    # -- autosave, resume and bookmarks (`/chat`) -------------------------------------------------------------
    def enable_autosave(self, store: SessionStore) -> None:
        """Saves this session as it goes into `store` (its file appears with the first prompt)."""
        self.store = store
        self.bus.tap(self._record_event)
        self._start_recording()

    def _start_recording(self) -> None:
        assert self.store is not None
        writer = self.store.new_writer(self.session_id, self.root, self.model_name)
        self._set_recorder(SessionRecorder(writer, lambda: self.conversation))

    def _set_recorder(self, recorder: SessionRecorder) -> None:
        if self.recorder is not None:
            self.recorder.close()
        self.recorder = recorder
        recorder.on_failure = self.report

    def _record_event(self, event: Event) -> None:
        if self.recorder is not None:
            self.recorder.on_event(event)

    def _autosave(self, *, end: bool = False) -> None:
        if self.recorder is not None:
            self.recorder.flush(end_answer=end)

    def resume(self, which: str = "latest") -> LoadedSession:
        """Continues a saved session (`latest`, its number in `list_sessions()`, or its id): its history is what
        the model sees next, and new turns go on in its file. Raises LookupError or NotASession."""
        if self.store is None:
            raise LookupError("Sessions are not saved in this run, so none can be resumed.")
        if self.is_running:
            raise RuntimeError("A prompt is running: wait for it to end (or cancel it) before resuming.")
        loaded = self.store.load(self.store.find(which).path)
        self.load_session(loaded)
        return loaded

    def load_session(self, loaded: LoadedSession) -> None:
        assert self.store is not None
        self.conversation.load(loaded.history)  # made valid: calls cut off by a kill are answered
        self.session_id = loaded.id
        recorder = SessionRecorder(self.store.writer_for(loaded), lambda: self.conversation,
                                   prompts=len(loaded.prompts))
        same = 0
        while same < min(len(loaded.history), len(self.conversation)) and \
                loaded.history[same] == self.conversation[same]:
            same += 1
        recorder.sync_saved(self.conversation[:same])  # what load changed is written with the next turn
        self._set_recorder(recorder)
        self.resumed = loaded
        self.prompt_marks = [PromptMark(str(p.data.get("text", "")), int(p.data.get("position", 0)))
                             for p in loaded.prompts]
        if self.checkpointer is not None:
            self.checkpointer.records = [c for c in loaded.checkpoints]
            self.checkpointer.agent_state = loaded.agent_state
        for problem in loaded.problems:
            self.report(problem)

    def list_sessions(self) -> list[SessionSummary]:
        return self.store.summaries() if self.store is not None else []

    def transcript(self) -> LoadedSession | None:
        if self.store is None or self.recorder is None:
            return None
        return self.store.load(self.recorder.writer.path)

    def delete_session(self, which: str) -> SessionSummary:
        if self.store is None:
            raise LookupError("Sessions are not saved in this run.")
        return self.store.delete(which, current=self.session_id)

    def clear(self) -> None:
        """Forgets the conversation (`/clear`) and starts a new saved session; approvals and stats stay."""
        self.conversation.clear()
        self.resumed = None
        self.prompt_marks = []
        if self.checkpointer is not None:
            self.checkpointer.records = []
        if self.store is not None:
            self.session_id = str(uuid.uuid4())
            self._start_recording()

    def save_chat(self, tag: str) -> Path:
        """`/chat save <tag>`: a named bookmark at this point of the saved session; returns its file."""
        tag = tag.strip()
        if not tag:
            raise ValueError("A bookmark needs a name: /chat save <tag>.")
        if self.recorder is None:
            raise LookupError("Sessions are not saved in this run, so there is nothing to bookmark.")
        self.recorder.add({"kind": "bookmark", "tag": tag, "at": time.time()})
        self.recorder.flush(end_answer=True)
        if self.recorder.failed:
            raise OSError(self.recorder.failed)
        return self.recorder.writer.path

    def resume_chat(self, tag: str) -> int:
        """`/chat resume <tag>`: continues from the bookmark in a new session (the bookmarked one stays as it
        was); returns the number of history entries loaded."""
        if self.store is None:
            raise LookupError("Sessions are not saved in this run.")
        if self.is_running:
            raise RuntimeError("A prompt is running: wait for it to end (or cancel it) first.")
        found = self.store.bookmarks().get(tag.strip())
        if found is not None:
            self.load_session(self.store.fork(found, str(uuid.uuid4())))
            return len(self.conversation)
        legacy = self.store.project / f"checkpoint-{_legacy_tag(tag)}.json"
        if not legacy.is_file():
            raise FileNotFoundError(f"No saved chat named {tag!r}. Saved: {', '.join(self.list_chats()) or 'none'}.")
        # a chat saved by an earlier build (one JSON file of contents): continued in a new session file
        try:
            history = contents_from_json(json.loads(legacy.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
            raise ValueError(f"The saved chat {legacy} cannot be read ({exc}); the file is left as it is.") from None
        self.session_id = str(uuid.uuid4())
        self.conversation.load(history)
        self._start_recording()
        return len(self.conversation)

    def list_chats(self) -> list[str]:
        if self.store is None:
            return []
        legacy = sorted(path.stem.removeprefix("checkpoint-") for path in self.store.project.glob("checkpoint-*.json"))
        return list(dict.fromkeys([*self.store.bookmarks(), *legacy]))

def _legacy_tag(tag: str) -> str:
    """How builds before the session store named a `/chat save` file."""
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in tag.strip()) or "default"


EMPTY_REPLY_RETRIES = 1  # an empty model reply is asked again this many times before the turn ends in an error


def _outcome(result: ToolResult) -> ToolOutcome:
    """What the model would be told of `result`, as text."""
    response = function_response(FunctionCall("", "", {}), result).response
    return ToolOutcome(str(response.get("output", response.get("error", ""))), result.error is None)


async def _unless_aborted(work: Awaitable[object], abort: AbortSignal) -> None:
    """Awaits `work`, or stops waiting for it when `abort` fires."""
    task = asyncio.ensure_future(work)
    if await finished_unless_aborted(task, abort) and not task.cancelled() and (error := task.exception()):
        log.warning("background start failed: %s", error)  # MCP reports per server; this is a bug guard


async def until_aborted(stream: AsyncIterator[T], abort: AbortSignal) -> AsyncIterator[T]:
    """Items of `stream` until it ends or `abort` fires, even while it waits on a slow server."""
    aborted = asyncio.ensure_future(abort.wait())
    step: asyncio.Future[T] | None = None
    try:
        while True:
            step = asyncio.ensure_future(anext(stream))
            # If the consumer goes away mid-wait (app closed mid-turn), the step may end later on its own:
            # retrieve its outcome so asyncio does not report an exception that "was never retrieved".
            step.add_done_callback(_retrieve_outcome)
            await asyncio.wait({step, aborted}, return_when=asyncio.FIRST_COMPLETED)
            if not step.done():
                step.cancel()
                await asyncio.gather(step, return_exceptions=True)
                return
            try:
                item = step.result()
            except StopAsyncIteration:
                return
            yield item
    finally:
        aborted.cancel()
        if step is not None and not step.done():
            # the consumer went away mid-wait (cancelled): stop the step first, or the stream is still running
            # when aclose() comes, fails with "asynchronous generator is already running", and is left for
            # the loop's shutdown to report on the user's terminal
            step.cancel()
            await asyncio.gather(step, return_exceptions=True)
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            with contextlib.suppress(Exception):
                await aclose()


def _retrieve_outcome(future: asyncio.Future[object]) -> None:
    if not future.cancelled():
        future.exception()


def _append_text(parts: list[ContentPart], text: str) -> None:
    if parts and isinstance(parts[-1], TextPart):
        parts[-1] = TextPart(parts[-1].text + text)
    else:
        parts.append(TextPart(text))


def _ms_since(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


_CUT_SHORT = {
    "MAX_TOKENS": "it reached the model's output token limit",
    "SAFETY": "the model's safety filters stopped it",
    "RECITATION": "it started to recite a source verbatim",
    "MALFORMED_FUNCTION_CALL": "the model wrote a malformed function call",
}


def cut_short_message(finish_reason: str) -> str:
    why = _CUT_SHORT.get(finish_reason, "the model stopped early")
    return f"The answer was cut short: {why} (finish reason {finish_reason}). Ask to continue, or narrow the request."
