"""The Session: one conversation's turn loop, wired to the parts that keep the rest.

It is what `core.session.face.SessionFace` describes: front ends call only those verbs. The loop itself is here;
what it keeps is in its parts, each small and tested alone: the history (`conversation`), the standing
instructions (`context_memory`), compression (`compressor`), one model request (`model_turn`), checkpoints and
the ways back (`rewind`), the session's file (`saved`: `autosave`), bookmarks (`chats`) and the background services
(`services`). They share one `SessionState`; this module is the one place they are wired."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from gemini_tui.core.approvals.grants import GrantStore
from gemini_tui.core.approvals.plan_folder import PlanFolder
from gemini_tui.core.approvals.policy import ApprovalMode, ApprovalPolicy, policy_from_settings
from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.debug_log import where_details
from gemini_tui.core.ground.display import TodoList
from gemini_tui.core.ground.events import (
    ApprovalModeChanged,
    ContextUsed,
    ErrorOccurred,
    EventBus,
    Notice,
    TurnEndReason,
    TurnFinished,
    TurnStarted,
    Usage,
    UsageUpdated,
)
from gemini_tui.core.ground.mentions import MentionError, expand_mentions
from gemini_tui.core.ground.model_api import ContentPart, FunctionCall, ModelClient
from gemini_tui.core.ground.parts import Part, TextPart
from gemini_tui.core.ground.stats import SessionStats
from gemini_tui.core.ground.tool_result import ToolResult
from gemini_tui.core.mcp.prompts import mcp_resource_reader
from gemini_tui.core.persistence.checkpoints import Checkpointer
from gemini_tui.core.persistence.recorder import SessionRecorder
from gemini_tui.core.persistence.records import PromptMark, prompt_position
from gemini_tui.core.persistence.store import project_dir
from gemini_tui.core.processes.sandbox import Sandbox
from gemini_tui.core.session import compression
from gemini_tui.core.session.abortable import unless_aborted
from gemini_tui.core.session.autosave import Autosave
from gemini_tui.core.session.compressor import Compressor
from gemini_tui.core.session.context_memory import ContextMemory
from gemini_tui.core.session.conversation import Conversation
from gemini_tui.core.session.face import McpServers, ToolDiscovery, ToolOutcome
from gemini_tui.core.session.hook_points import HookPoints
from gemini_tui.core.session.loop_detection import LoopDetector
from gemini_tui.core.session.model_turn import ModelTurn
from gemini_tui.core.session.plan_instruction import plan_mode_section
from gemini_tui.core.session.rewind import Rewind
from gemini_tui.core.session.saved_chats import SavedChats
from gemini_tui.core.session.scheduler import Scheduler, function_response
from gemini_tui.core.session.service_wait import ServiceWait
from gemini_tui.core.session.services import BackgroundServices
from gemini_tui.core.session.state import SessionState
from gemini_tui.core.session.todos import latest_todos
from gemini_tui.core.setup.config import Settings
from gemini_tui.core.setup.context import Memory
from gemini_tui.core.setup.skills import ACTIVATE_SKILL, SkillSet, system_section
from gemini_tui.core.tooling.registry import ToolRegistry
from gemini_tui.core.tooling.tool import BaseTool

if TYPE_CHECKING:
    from gemini_tui.core.approvals.hooks import Hooks
    from gemini_tui.core.setup.auth import Auth
    from gemini_tui.core.setup.custom_commands import CustomCommand
    from gemini_tui.core.setup.extensions import Extension
    from gemini_tui.core.setup.user_setup import UserSetup

log = logging.getLogger(__name__)
MCP_WAIT_S = 30.0  # the first prompt waits this long at most for MCP servers still connecting
EMPTY_REPLY_RETRIES = 1  # an empty model reply is asked again this many times before the turn ends in an error


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
                 hooks: Hooks | None = None, auth: Auth | None = None,
                 model_factory: Callable[[str], tuple[ModelClient, str | None]] | None = None,
                 workspace: DirectoryGate | None = None, setup: UserSetup | None = None) -> None:
        self.settings = settings
        self.registry = registry
        self.model = model
        self.root = Path(root)
        self.state = state = SessionState(self.root, bus or EventBus())
        self.bus = state.bus
        self.stats = SessionStats()
        self.max_turns = settings.max_session_turns
        if policy is None:
            policy = policy_from_settings(settings, self.root, grants=GrantStore(self.root, settings.gemini_dir))
        policy.set_mode(approval_mode)  # PermissionError: yolo refused by security.disableYoloMode
        self.policy = policy
        self.grants: GrantStore = policy.grants  # type: ignore[assignment]
        self.scheduler = Scheduler(registry, self.bus, self.stats, policy=policy, interactive=interactive,
                                   hooks=hooks)
        registry.offer_context = lambda: (self.policy.mode.value, self.scheduler.interactive)
        # plan mode's one writable place: this session's plans folder (it follows the session id)
        policy.plans = self.plans = PlanFolder(
            lambda: project_dir(settings.gemini_dir, self.root) / self.state.session_id / "plans")
        self._abort: AbortSignal | None = None
        self.mcp = mcp
        self.discovery = discovery
        # how commands run: bubblewrap, nothing, or refused (built by the wiring; the status line and /about)
        self.sandbox = sandbox or Sandbox()
        # how Gemini is reached (a core.auth.Auth, for `/auth`) and how another model is built (for `/model`)
        self.auth = auth
        self.model_factory = model_factory
        # what the user brings beyond settings.json (core.user_setup.UserSetup): extensions, custom commands by
        # name, the workspace's other directories, and the extensions' context files with the directory their
        # imports may read
        self.extensions: list[Extension] = list(setup.extensions) if setup else []
        self.commands: dict[str, CustomCommand] = dict(setup.commands) if setup else {}
        self.include_dirs: list[Path] = list(setup.include_dirs) if setup else []
        self.skills: SkillSet = setup.skills if setup else SkillSet()
        extra_context = [(path, ext.path) for ext in self.extensions for path in ext.context_files]
        if self.mcp is not None:
            self.mcp.commands = self.commands  # servers' prompts join as `/server:prompt`
        self.workspace = workspace  # the tools' gate (tools.workspace.Workspace): `/directory add` widens it
        self._background: set[asyncio.Task[None]] = set()
        # the parts, wired here and nowhere else
        self.context = ContextMemory(settings, self.root, state.notice, self.include_dirs, extra_context)
        self.services = BackgroundServices(registry, mcp, discovery, state.notice)
        self._service_wait = ServiceWait()  # a prompt's wait for MCP servers, said and stoppable
        # the hooks at the turn loop's points (a hook's notices go on the bus), for the parts that fire them
        self.hook_points = HookPoints(hooks, state, self._run)
        self.compressor = Compressor(state, self.stats, settings.compression_threshold, lambda: self.model,
                                     self.hook_points)
        self.model_turn = ModelTurn(state, self.stats, lambda: self.model, registry, self.compressor,
                                    self.system_instruction, lambda: self.scheduler.interactive, self.hook_points)
        self.rewind = Rewind(state)
        self.saved = Autosave(state, lambda: self.model_name, self._count_resumed)  # this session's file
        self.chats = SavedChats(state, self.saved)
        for notice in notices:
            state.notice(notice)

    # -- what the front ends read and set --------------------------------------------------------------------
    @property
    def session_id(self) -> str:
        return self.state.session_id

    @property
    def conversation(self) -> Conversation:
        return self.state.conversation

    history = conversation

    @property
    def prompt_marks(self) -> list[PromptMark]:
        return self.state.prompt_marks

    @property
    def recorder(self) -> SessionRecorder | None:
        return self.state.recorder

    @property
    def checkpointer(self) -> Checkpointer | None:
        return self.state.checkpointer

    @property
    def approval_mode(self) -> ApprovalMode:
        return self.scheduler.approval_mode

    @approval_mode.setter
    def approval_mode(self, mode: ApprovalMode) -> None:
        self.policy.set_mode(mode)  # PermissionError when security.disableYoloMode refuses yolo
        if mode is ApprovalMode.plan:
            self.open_plans()

    def open_plans(self) -> Path | None:
        """Creates this session's plans folder and lets the tools write there (plan mode's rules allow only a
        `.md` file directly in it); None when it cannot be made (the first write of a plan says why)."""
        try:
            folder = self.plans.ensure()
            if self.workspace is not None:
                self.workspace.add_directory(str(folder))
        except Exception as exc:  # OSError, or the gate's WorkspaceError (core does not import tools)
            log.warning("the plans folder %s cannot be used: %s", self.plans.path, exc)
            return None
        return folder

    def switch_mode(self, mode: ApprovalMode, reason: str = "") -> None:
        """A tool changes the approval mode (entering or leaving plan mode): set, and told to the front ends."""
        self.approval_mode = mode
        self.bus.publish(ApprovalModeChanged(mode.value, reason))

    @property
    def todos(self) -> TodoList | None:
        """The model's todo list as its last `write_todos` left it in the conversation (so a resumed or rewound
        session has the list its history says); None when it never wrote one."""
        return latest_todos(self.state.conversation.snapshot())

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
        return self.state.is_running

    @property
    def notices(self) -> Sequence[Notice]:
        return tuple(self.state.notices)

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

    def report(self, message: str, level: str = "warning") -> None:
        """A notice from the wiring (a session that could not be resumed, ...), kept for late subscribers."""
        self.state.report(message, level)

    async def start(self, wait_s: float | None = 0.0) -> None:
        """Starts MCP servers and command discovery; `send` calls it too, waiting up to `MCP_WAIT_S` so the first
        request already offers those tools."""
        await self.services.start(wait_s)

    @property
    def waiting_for_servers(self) -> bool:
        """A prompt waits for MCP servers still connecting (Esc sends it now)."""
        return self._service_wait.waiting

    def stop_waiting(self) -> bool:
        """Ends a prompt's wait for MCP servers still connecting (it goes without their tools); False when none
        was waiting."""
        return self._service_wait.stop()

    async def close(self) -> None:
        """Disconnects MCP servers and ends a discovery still running; called once when the front end exits."""
        await self.services.close()
        await self.hook_points.session_end("exit")

    # -- memory (GEMINI.md) ----------------------------------------------------------------------------------
    @property
    def memory(self) -> Memory:
        return self.context.memory

    def refresh_memory(self) -> Memory:
        return self.context.refresh()

    reload_memory = refresh_memory

    def system_instruction(self) -> str:
        prompt = self.context.system_instruction()
        if self.policy.mode is ApprovalMode.plan:
            prompt = f"{prompt}\n{plan_mode_section(self.plans.path, self.scheduler.interactive)}\n"
        if self.skills.enabled and self.registry.get(ACTIVATE_SKILL) is not None:  # Agent Skills, as Gemini CLI
            prompt = f"{prompt}\n{system_section(self.skills.enabled, self.model_name)}\n"
        for tool in self.registry.tools:  # sections of tools that bring their own (invoke_agent's agents)
            if section := tool.system_section(self.model_name):
                prompt = f"{prompt}\n{section}\n"
        return prompt

    async def add_memory(self, fact: str) -> ToolOutcome:
        """`/memory add`: save_memory through the scheduler (shown and asked like any call); the tool re-reads
        the memory when it wrote."""
        result = await self._run_for_user("save_memory", {"fact": fact})
        if result is None:
            return ToolOutcome("The save_memory tool is not enabled.", False, ran=False)
        return _outcome(result)

    # -- the turn loop ---------------------------------------------------------------------------------------
    def cancel(self) -> None:
        """Stops the stream and every unfinished call of the running prompt (each still gets its response)."""
        if self._abort is not None:
            self._abort.abort("cancelled by the user")

    async def send(self, prompt: str | list[Part]) -> TurnEndReason:
        """Runs one user prompt until the model ends its turn with no calls (or stops, fails, is cancelled).
        In a text prompt, `@path` mentions are read through `read_many_files` and sent after the text."""
        state = self.state
        async with state.busy:
            abort = self._abort = AbortSignal()
            await unless_aborted(self._service_wait.wait(self.start(MCP_WAIT_S), self.services.connecting,
                                                         self.bus.publish, MCP_WAIT_S), abort)
            prompt_id = uuid.uuid4().hex[:12]
            shown = prompt if isinstance(prompt, str) else "".join(p.text for p in prompt if isinstance(p, TextPart))
            state.prompt_marks.append(PromptMark(shown, prompt_position(state.conversation)))
            self.bus.publish(TurnStarted(prompt_id, shown))
            try:
                parts = await self._prompt_parts(prompt, abort)
                gate = await self.hook_points.before_agent(parts, shown)
                if gate.keep:
                    state.conversation.append_user(gate.parts)
                    state.autosave()
                reason, message = gate.end or await self.hook_points.after_agent(shown, await self._run(abort), abort)
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
                state.conversation.answer_pending("The request was cancelled before this call ran.")
                self.bus.publish(TurnFinished(prompt_id, TurnEndReason.cancelled, "Request cancelled."))
                raise
            except Exception as exc:  # a bug in the loop must end the prompt visibly, not hang the front end
                log.exception("the turn loop failed")
                reason, message = TurnEndReason.error, (f"Internal error: {type(exc).__name__}: {exc}"
                                                        f"{where_details()}")
                state.conversation.answer_pending(message)
                self.bus.publish(ErrorOccurred(message, "internal"))
            finally:
                self._abort = None
                state.autosave(end=True)
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
            if (roots_changed := getattr(self.mcp, "roots_changed", None)) is not None:  # servers see the new root
                with contextlib.suppress(RuntimeError):  # no running loop: they ask for roots when they need them
                    task = asyncio.get_running_loop().create_task(roots_changed())
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
            if (server_expand := getattr(command, "expand", None)) is not None:  # an MCP prompt: the server writes
                try:
                    parts = await server_expand(args)
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

    async def _prompt_parts(self, prompt: str | list[Part], abort: AbortSignal) -> list[ContentPart]:
        if not isinstance(prompt, str):
            return list(prompt)
        async def read_files(args: dict[str, Any]) -> ToolResult:
            return await self.scheduler.run_for_user("read_many_files", args, abort, requested_by="mention")

        reader = read_files if "read_many_files" in self.registry else None
        expanded = await expand_mentions(prompt, reader, mcp_resource_reader(self.mcp))
        return [TextPart(expanded)] if isinstance(expanded, str) else list(expanded)

    async def _run_for_user(self, tool_name: str, args: dict[str, Any]) -> ToolResult | None:
        """One tool call the user asked for, through the scheduler, one at a time with prompts (None: the tool
        is disabled)."""
        async with self.state.busy:
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
        self.state.conversation.append_user([TextPart(
            f"I ran the following shell command:\n```sh\n{command}\n```\n\n"
            f"This produced the following result:\n```\n{outcome.text}\n```\n")])
        self.state.autosave(end=True)
        return outcome

    async def _run(self, abort: AbortSignal) -> tuple[TurnEndReason, str]:
        detector = LoopDetector(enabled=not self.settings.disable_loop_detection)
        empty_replies = 0
        for _ in range(self.max_turns):
            outcome = await self.model_turn.stream(abort, detector)
            if isinstance(outcome, tuple):
                return outcome
            calls = outcome
            if not calls and self.model_turn.reply_was_empty:
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
                    # every FunctionCall needs its FunctionResponse, even when the loop stops before running it
                    self.state.conversation.answer_pending(loop)
                    self.bus.publish(ErrorOccurred(loop, "loop_detected"))
                    return TurnEndReason.loop_detected, loop
            responses = await self.scheduler.run(calls, abort)
            self.state.conversation.append_responses(responses)
            self.state.autosave()
            if (stopped := self.hook_points.stop_requested()) is not None:  # a tool hook's continue: false
                return stopped
            if abort.aborted:
                return TurnEndReason.cancelled, "Request cancelled."
        message = (f"Stopped after {self.max_turns} model turns for one prompt (model.maxSessionTurns). "
                   "Send another prompt to continue.")
        self.bus.publish(ErrorOccurred(message, "max_turns"))
        return TurnEndReason.max_turns, message

    # -- compression, and what a saved conversation taking this one's place changes -------------------------
    async def compress(self) -> compression.Compression | None:
        """`/compress`: condenses the older turns now, whatever the threshold (None: nothing to condense)."""
        async with self.state.busy:
            abort = self._abort = AbortSignal()
            try:
                return await self.compressor.maybe_compress(abort, force=True)
            finally:
                self._abort = None
                self.state.autosave()

    def context_used(self) -> ContextUsed:
        """How full the model's context window is with the conversation as it is: right after a resume, what the
        model counted at the resumed session's last request (when recorded, and the history is as it was then),
        else the estimate every request starts from."""
        loaded, conversation = self.saved.resumed, self.state.conversation
        if loaded is not None and loaded.context_tokens is not None and len(conversation) == len(loaded.history):
            tokens = loaded.context_tokens
        else:
            tokens = compression.estimate_tokens(conversation)
        return ContextUsed(tokens, self.compressor.context_window())

    def _count_resumed(self) -> None:
        """A saved conversation took this one's place: the token count goes on from what its requests used, and the
        context share is its history's (the status line showed 0 until the next request, though all of it is sent)."""
        loaded = self.saved.resumed
        self.stats.carry(loaded.tokens_spent if loaded is not None else 0)
        self.bus.publish(UsageUpdated(self.model_name, Usage(), self.stats.conversation_tokens))
        self.bus.publish(self.context_used())

    def clear(self) -> None:
        """Forgets the conversation (`/clear`) and starts a new saved session; approvals and stats stay."""
        self.state.conversation.clear()
        self.hook_points.on_clear()
        self.saved.resumed = None
        self.state.prompt_marks = []
        if self.state.checkpointer is not None:
            self.state.checkpointer.records = []
        self.saved.restart()
        # a resumed session's tokens were that conversation's: the count is this run's again, the context empty
        self.stats.carried_tokens = self.stats.carried_at = 0
        self.bus.publish(UsageUpdated(self.model_name, Usage(), self.stats.conversation_tokens))
        self.bus.publish(self.context_used())


def _outcome(result: ToolResult) -> ToolOutcome:
    """What the model would be told of `result`, as text."""
    response = function_response(FunctionCall("", "", {}), result).response
    return ToolOutcome(str(response.get("output", response.get("error", ""))), result.error is None)
