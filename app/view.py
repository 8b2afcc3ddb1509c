"""What the app's controllers need of the screen they drive, as protocols: the event adapter, the confirmation queue
and the command palette depend on these, not on `MainScreen` (which is one of each), so no module reaches into a
screen for its widgets and the screen's module sits at the top of the import graph."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

    from gemini_tui.app.call_log import CallLog, CallRecord
    from gemini_tui.app.turns import Turns
    from gemini_tui.app.widgets.chat import ChatPane
    from gemini_tui.app.widgets.confirm_bar import ConfirmBar
    from gemini_tui.app.widgets.prompt import PromptArea
    from gemini_tui.app.widgets.queue import ToolQueue
    from gemini_tui.app.widgets.status import StatusLine
    from gemini_tui.app.widgets.todo_list import TodoPanel
    from gemini_tui.core.ground.events import McpServerStatusChanged
    from gemini_tui.core.persistence.records import LoadedSession
    from gemini_tui.core.session.face import SessionFace

T = TypeVar("T")


class ModalHost(Protocol):
    """Opens a modal over itself and closes it again."""

    def push_modal(self, modal: Screen[T], callback: Callable[[T | None], None]) -> None: ...
    def pop_modal(self, modal: Screen[Any]) -> None:
        """Closes `modal` if it is still the screen on top."""
        ...


class ConfirmationView(ModalHost, Protocol):
    """Where confirmations are asked: the inline bar, diff modals, and the prompt to return to."""

    confirm_bar: ConfirmBar
    prompt: PromptArea  # a key meant for it that reached a confirmation not listening yet goes there

    def focus_prompt(self) -> None: ...
    def action_cancel_turn(self) -> None:
        """Cancels the running turn (Ctrl+C inside a diff review)."""
        ...
    def attention(self, reason: str | None) -> None:
        """Asks for the user's attention (`approval`, `answer`), or stops asking (None)."""
        ...
    def allows_saving_grants(self) -> bool:
        """Whether "allow always" may be offered (not when security.disableAlwaysAllow is set)."""
        ...
    def call_later(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...


class EventView(ConfirmationView, Protocol):
    """What the event adapter updates: the widgets each event reaches, the call log, and where its confirmations
    are asked."""

    chat: ChatPane
    queue: ToolQueue
    status: StatusLine
    todos: TodoPanel
    calls: CallLog
    mcp_status: dict[str, McpServerStatusChanged]

    def show_in_history(self, record: CallRecord) -> None: ...
    def model_label(self) -> str:
        """The session's model as the status line shows it (an `auto` alias follows the approval mode)."""
        ...
    def refresh_bindings(self) -> None:
        """The keys that work changed (a prompt started or stopped waiting for MCP servers)."""
        ...
    def refresh_session_commands(self) -> None:
        """The session's commands changed (an MCP server's prompts arrived): completion and help follow."""
        ...
    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...


class SlashRunner(Protocol):
    async def run(self, line: str) -> None: ...


class PaletteActions(Protocol):
    """What the command palette offers besides the slash commands."""

    session: SessionFace

    @property
    def results(self) -> SlashRunner:
        """Runs a slash command and shows what it returned (`CommandResults`)."""
        ...
    def action_cycle_mode(self) -> None: ...
    def action_toggle_yolo(self) -> None: ...
    def action_toggle_history(self) -> None: ...


class CommandView(Protocol):
    """What a command that asks the user drives: the chat, the prompt, modals it awaits, workers."""

    session: SessionFace
    chat: ChatPane
    prompt: PromptArea

    @property
    def app(self) -> Any: ...  # the running App: Textual types it through a descriptor a protocol cannot match
    async def show_transcript(self, loaded: LoadedSession) -> None: ...
    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Any: ...
    def post_message(self, message: Any) -> bool: ...


class ResultView(CommandView, Protocol):
    """What showing a slash command's result drives besides a command's view: the queue and the status line,
    what is known of MCP servers, and the turns (a custom command starts one)."""

    queue: ToolQueue
    status: StatusLine
    todos: TodoPanel
    mcp_status: dict[str, McpServerStatusChanged]

    @property
    def turns(self) -> Turns: ...
