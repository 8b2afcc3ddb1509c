"""What a front end may do with a session: the verbs the app and headless call, and the services a session is
given when it is built. Front ends use `SessionFace` and the events on its bus, nothing else of the core's insides.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from gemini_tui.core.approvals.grants import GrantStore
    from gemini_tui.core.approvals.policy import ApprovalPolicy
    from gemini_tui.core.ground.display import TodoList
    from gemini_tui.core.ground.events import ContextUsed, EventBus, Notice, TurnEndReason
    from gemini_tui.core.ground.model_api import Content
    from gemini_tui.core.ground.stats import SessionStats
    from gemini_tui.core.persistence.checkpoints import RestoreOutcome
    from gemini_tui.core.persistence.records import CheckpointRecord, LoadedSession, PromptMark
    from gemini_tui.core.persistence.shadow_repo import RestorePlan
    from gemini_tui.core.persistence.store import SessionSummary
    from gemini_tui.core.processes.sandbox import Sandbox
    from gemini_tui.core.session.compression import Compression
    from gemini_tui.core.session.scheduler import ApprovalMode
    from gemini_tui.core.setup.auth import Auth
    from gemini_tui.core.setup.config import Settings
    from gemini_tui.core.setup.context import Memory
    from gemini_tui.core.setup.custom_commands import CustomCommand
    from gemini_tui.core.setup.extensions import Extension
    from gemini_tui.core.tooling.tool import BaseTool


@dataclass(frozen=True)
class ToolOutcome:
    """How a tool run for the user (`!command`, `/memory add`) ended: what the model is told of it, whether it
    succeeded, and whether it ran at all (False: the tool is disabled; `text` says so)."""

    text: str
    ok: bool
    ran: bool = True


class SessionFace(Protocol):
    """One conversation, as every front end sees it. Everything it shows comes from the events on `bus`."""

    bus: EventBus
    @property
    def session_id(self) -> str: ...
    root: Path
    stats: SessionStats
    sandbox: Sandbox  # how commands run: `describe()` for the status line, `explain()` for /about
    settings: Settings  # the settings in force (folder trust and what it withheld, rules with their origins)
    policy: ApprovalPolicy  # the approval policy's rules (for /permissions), with where each came from
    grants: GrantStore  # "allow for the session" / "allow always" grants: /permissions lists and revokes them
    auth: Auth | None  # how Gemini is reached, for `/auth`
    commands: dict[str, CustomCommand]  # custom commands (files, extensions, MCP prompts) by name
    extensions: list[Extension]  # for `/extensions`
    include_dirs: list[Path]  # the workspace's directories beside the root

    # -- the parts a front end reaches directly ----------------------------------------------------------------
    @property
    def rewind(self) -> RewindFace:
        """Checkpoints and the ways back: `/restore`, `/undo`, `/rewind`."""
        ...
    @property
    def saved(self) -> SavedSessionsFace:
        """This session's file, and the other saved sessions: `/resume`, `--resume`, `--list-sessions`."""
        ...
    @property
    def chats(self) -> ChatsFace:
        """`/chat save|resume|list`: named bookmarks."""
        ...

    # -- what it is ----------------------------------------------------------------------------------------------
    @property
    def model_name(self) -> str: ...
    @property
    def model_label(self) -> str:
        """The model as shown: an `auto` alias with the model it stands for now."""
        ...
    @property
    def is_offline(self) -> bool: ...
    @property
    def is_running(self) -> bool: ...
    def context_used(self) -> ContextUsed:
        """How full the model's context window is with the conversation as it is (after a resume: the resumed
        session's last count, else an estimate); the same figure `ContextUsed` events carry."""
        ...
    @property
    def notices(self) -> Sequence[Notice]:
        """Notices published while the session was built (settings problems, the offline model), for a front
        end that subscribed after them."""
        ...
    @property
    def approval_mode(self) -> ApprovalMode: ...
    @approval_mode.setter
    def approval_mode(self, mode: ApprovalMode) -> None: ...
    @property
    def history(self) -> Sequence[Content]: ...
    @property
    def services(self) -> ServicesFace:
        """MCP servers and command discovery: what a server offers beside tools, resources to mention."""
        ...
    @property
    def tools(self) -> Sequence[BaseTool]:
        """The tools the model is offered now (MCP and discovered tools join as they arrive)."""
        ...

    # -- lifetime ------------------------------------------------------------------------------------------------
    async def start(self, wait_s: float | None = 0.0) -> None:
        """Starts MCP servers and command discovery (waits up to `wait_s` for them; 0: not at all)."""
        ...
    async def close(self) -> None: ...

    # -- turns ---------------------------------------------------------------------------------------------------
    async def send(self, prompt: str) -> TurnEndReason:
        """Runs a prompt to its end; `@path` mentions are read (through `read_many_files`) and sent along."""
        ...
    async def run_shell(self, command: str) -> ToolOutcome:
        """A `!command`: through the scheduler (asked like the model's own), and its output joins the
        conversation for the next prompt."""
        ...
    async def send_command(self, line: str) -> TurnEndReason | None:
        """A custom command (`/name args`): expanded by the session, then sent as a prompt."""
        ...
    def cancel(self) -> None:
        """Stops the running prompt or command; every call still gets its response."""
        ...
    @property
    def todos(self) -> TodoList | None:
        """The model's todo list as its last `write_todos` left it in the conversation."""
        ...
    @property
    def waiting_for_servers(self) -> bool:
        """A prompt waits for MCP servers still connecting (`stop_waiting` sends it now)."""
        ...
    def stop_waiting(self) -> bool:
        """A prompt waiting for MCP servers still connecting goes now, without their tools; False when no prompt
        was waiting."""
        ...
    def clear(self) -> None: ...

    # -- setup ----------------------------------------------------------------------------------------------------
    def set_model(self, name: str) -> str | None:
        """Switches the model for the next request; returns a notice to show, if any (raises on a bad name)."""
        ...
    def add_directory(self, directory: str) -> Path:
        """Adds a directory to the workspace (`/directory add`); raises ValueError when it cannot."""
        ...

    # -- memory --------------------------------------------------------------------------------------------------
    @property
    def memory(self) -> Memory: ...
    def refresh_memory(self) -> Memory: ...
    async def add_memory(self, fact: str) -> ToolOutcome:
        """`/memory add`: the save_memory tool through the scheduler, then the memory re-read."""
        ...

    # -- saved sessions, compression ---------------------------------------------------------------------------
    @property
    def prompt_marks(self) -> list[PromptMark]:
        """Every prompt's text and where it starts in the conversation (for /rewind)."""
        ...
    async def compress(self) -> Compression | None: ...


class ServicesFace(Protocol):
    """The background services as a front end reads them."""

    def mcp_offers(self, server: str) -> tuple[list[str], list[str]]:
        """What a connected MCP server offers beside tools: its prompts' names and its resources' URIs."""
        ...
    def resource_mentions(self) -> dict[str, str]:
        """MCP resources a prompt may mention: `server:uri` -> name (for completion after `@`)."""
        ...


class RewindFace(Protocol):
    """Checkpoints taken before each file-changing call, and the ways back to one (plan first, then apply)."""

    def list(self) -> list[CheckpointRecord]: ...
    async def plan_restore(self, which: str) -> tuple[CheckpointRecord, RestorePlan]: ...
    async def restore(self, record: CheckpointRecord, plan: RestorePlan, *,
                      conversation: bool = True) -> RestoreOutcome: ...
    async def plan_undo(self) -> tuple[CheckpointRecord, RestorePlan]: ...
    async def undo(self, record: CheckpointRecord, plan: RestorePlan) -> RestoreOutcome: ...
    def rewind_conversation(self, prompt_index: int, *, fallback_position: int | None = None) -> str: ...
    async def plan_rewind_files(self, prompt_index: int) -> tuple[CheckpointRecord, RestorePlan] | None: ...


class SavedSessionsFace(Protocol):
    """The session's file and the project's other saved sessions. Resuming one counts its tokens on."""

    @property
    def resumed(self) -> LoadedSession | None:
        """A resumed session's transcript, for the front end to redraw what the user saw."""
        ...
    def resume(self, which: str = "latest") -> LoadedSession: ...
    def list_sessions(self) -> list[SessionSummary]: ...
    def transcript(self) -> LoadedSession | None:
        """This session as its saved record now holds it (after a rewind or restore), or None when not saved."""
        ...
    def delete(self, which: str) -> SessionSummary: ...


class ChatsFace(Protocol):
    """Named bookmarks in the saved session (and chats saved by earlier builds)."""

    def save(self, tag: str) -> Path: ...
    def resume(self, tag: str) -> int:
        """Continues from the bookmark in a new session; returns the number of history entries loaded."""
        ...
    def list(self) -> list[str]: ...


class ToolDiscovery(Protocol):
    """`tools.discoveryCommand` running in the background (core.discovered_tool.BackgroundDiscovery)."""

    async def result(self) -> DiscoveryResult: ...
    def stop(self) -> None: ...


class DiscoveryResult(Protocol):
    @property
    def tools(self) -> Sequence[BaseTool]: ...
    @property
    def errors(self) -> Sequence[str]: ...


class McpServers(Protocol):
    """The configured MCP servers (core.mcp.McpManager): they register their tools as they connect."""

    def start(self) -> None: ...
    async def wait_ready(self, timeout_s: float | None = None) -> bool: ...
    commands: dict[str, Any] | None  # the session's commands: servers' prompts join them
    def connecting(self) -> list[str]: ...
    async def close(self) -> None: ...
    def resource_mentions(self) -> dict[str, str]: ...
