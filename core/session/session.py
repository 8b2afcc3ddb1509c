"""The Session: one conversation's turn loop, wired to the parts that keep the rest.

It is what `core.session.face.SessionFace` describes: front ends call only those verbs and parts. The work is in
the parts, each small and tested alone: a prompt run to its end (`turn_loop`), one model request (`model_turn`),
the hooks at its points (`hook_points`), compression (`compressor`), the standing instructions
(`context_memory`), calls the user runs by hand (`user_calls`), custom commands (`command_prompts`), the
workspace's directories (`directories`), checkpoints and the ways back (`rewind`), the session's file (`saved`:
`autosave`), bookmarks (`chats`) and the background services (`services`). They share one `SessionState`; this
module is the one place they are wired."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gemini_tui.core.approvals.grants import GrantStore
from gemini_tui.core.approvals.plan_folder import PlanFolder
from gemini_tui.core.approvals.policy import ApprovalMode, ApprovalPolicy, policy_from_settings
from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.display import TodoList
from gemini_tui.core.ground.events import (
    ApprovalModeChanged,
    ContextUsed,
    EventBus,
    Notice,
    TurnEndReason,
    Usage,
    UsageUpdated,
)
from gemini_tui.core.ground.model_api import ModelClient
from gemini_tui.core.ground.parts import Part
from gemini_tui.core.ground.stats import SessionStats
from gemini_tui.core.mcp.prompts import mcp_resource_reader
from gemini_tui.core.models.auto_model import AutoModel
from gemini_tui.core.persistence.records import PromptMark
from gemini_tui.core.persistence.store import project_dir
from gemini_tui.core.processes.sandbox import Sandbox
from gemini_tui.core.session import compression
from gemini_tui.core.session.autosave import Autosave
from gemini_tui.core.session.command_prompts import CommandPrompts
from gemini_tui.core.session.compressor import Compressor
from gemini_tui.core.session.context_memory import ContextMemory
from gemini_tui.core.session.conversation import Conversation
from gemini_tui.core.session.directories import Directories, DirectoryGate
from gemini_tui.core.session.face import McpServers, ToolDiscovery
from gemini_tui.core.session.hook_points import HookPoints
from gemini_tui.core.session.model_routing import ModelChoice
from gemini_tui.core.session.model_turn import ModelTurn
from gemini_tui.core.session.plan_instruction import plan_mode_section
from gemini_tui.core.session.rewind import Rewind
from gemini_tui.core.session.saved_chats import SavedChats
from gemini_tui.core.session.scheduler import Scheduler
from gemini_tui.core.session.service_wait import ServiceWait
from gemini_tui.core.session.services import BackgroundServices
from gemini_tui.core.session.state import SessionState
from gemini_tui.core.session.todos import latest_todos
from gemini_tui.core.session.turn_loop import TurnLoop
from gemini_tui.core.session.user_calls import UserCalls
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
                 workspace: DirectoryGate | None = None, setup: UserSetup | None = None,
                 auto: AutoModel | None = None) -> None:
        self.settings = settings
        self.registry = registry
        # the model requests go to (`auto`: the alias configured, routed by mode), and how another is built
        self.models = ModelChoice(model, auto, settings.plan_model_routing, model_factory)
        self.root = Path(root)
        self.state = state = SessionState(self.root, bus or EventBus())
        self.bus = state.bus
        self.stats = SessionStats()
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
        self.mcp = mcp
        self.discovery = discovery
        # how commands run: bubblewrap, nothing, or refused (built by the wiring; the status line and /about)
        self.sandbox = sandbox or Sandbox()
        self.auth = auth  # how Gemini is reached (a core.auth.Auth, for `/auth`)
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
        # the parts, wired here and nowhere else
        self.context = ContextMemory(settings, self.root, state.notice, self.include_dirs, extra_context)
        self.services = BackgroundServices(registry, mcp, discovery, state.notice)
        self._service_wait = ServiceWait()  # a prompt's wait for MCP servers, said and stoppable
        # the hooks at the turn loop's points (a hook's notices go on the bus), for the parts that fire them
        self.hook_points = HookPoints(hooks, state, lambda abort: self.turns.run(abort))
        self.compressor = Compressor(state, self.stats, settings.compression_threshold, lambda: self.model,
                                     self.hook_points)
        self.model_turn = ModelTurn(state, self.stats, lambda: self.model, registry, self.compressor,
                                    self.system_instruction, lambda: self.scheduler.interactive, self.hook_points)
        self.turns = TurnLoop(state, self.model_turn, self.scheduler, registry, self.hook_points,
                              max_turns=settings.max_session_turns, detect_loops=not settings.disable_loop_detection,
                              before=lambda: self._service_wait.wait(self.start(MCP_WAIT_S), self.services.connecting,
                                                                     self.bus.publish, MCP_WAIT_S),
                              resources=mcp_resource_reader(mcp))
        self.user_calls = UserCalls(state, registry, self.scheduler)
        self.run_shell = self.user_calls.run_shell  # `!command`
        self.add_memory = self.user_calls.add_memory  # `/memory add`
        self.command_prompts = CommandPrompts(state, registry, self.scheduler, self.commands, self.send,
                                              None if mcp is None else lambda: self.start(MCP_WAIT_S))
        self.send_command = self.command_prompts.send_command  # `/name args`
        self.directories = Directories(self.root, self.include_dirs, workspace, self.sandbox, mcp)
        self.add_directory = self.directories.add  # `/directory add`
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
    def approval_mode(self) -> ApprovalMode:
        return self.scheduler.approval_mode

    @approval_mode.setter
    def approval_mode(self, mode: ApprovalMode) -> None:
        self.policy.set_mode(mode)  # PermissionError when security.disableYoloMode refuses yolo
        if mode is ApprovalMode.plan:
            self.open_plans()
        self.models.route(mode)

    def plan_approved(self, path: Path) -> None:
        """exit_plan_mode's plan was approved: an `auto` alias carries it out with its Flash model (the mode
        switch that follows routes)."""
        self.models.routing.approved_plan = path

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
    def model(self) -> ModelClient:
        return self.models.client

    @property
    def model_factory(self) -> Callable[[str], tuple[ModelClient, str | None]] | None:
        return self.models.factory

    @property
    def model_name(self) -> str:
        return self.models.client.model_name

    @property
    def model_label(self) -> str:
        return self.models.label

    @property
    def is_offline(self) -> bool:
        return self.model.is_offline

    def set_model(self, name: str) -> str | None:
        """Switches the model for the next request (`/model NAME`); returns the notice the new client came with
        (e.g. the offline model's). The history stays."""
        return self.models.switch(name, self.approval_mode)

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

    # -- the turn loop ---------------------------------------------------------------------------------------
    def cancel(self) -> None:
        """Stops the stream and every unfinished call of the running prompt (each still gets its response)."""
        if self.state.abort is not None:
            self.state.abort.abort("cancelled by the user")

    async def send(self, prompt: str | list[Part]) -> TurnEndReason:
        """Runs one user prompt to its end (`turns`); MCP servers still connecting are waited for first."""
        return await self.turns.send(prompt)

    # -- compression, and what a saved conversation taking this one's place changes -------------------------
    async def compress(self) -> compression.Compression | None:
        """`/compress`: condenses the older turns now, whatever the threshold (None: nothing to condense)."""
        async with self.state.busy:
            abort = self.state.abort = AbortSignal()
            try:
                return await self.compressor.maybe_compress(abort, force=True)
            finally:
                self.state.abort = None
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

