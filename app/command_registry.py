"""The slash-command registry and what a command returns: each command takes the session's face, its arguments
and a `CommandContext`, and returns a typed `CommandResult` that the screen shows. Commands register with
`@command`; `app.slash_commands` holds the built-in ones (and loads `app.setup_commands`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemini_tui.app.view import CommandView
    from gemini_tui.core.ground.events import McpServerStatusChanged
    from gemini_tui.core.session.face import SessionFace


@dataclass(frozen=True)
class ShowMarkdown:
    """Command output, shown as Markdown in the chat."""

    text: str


@dataclass(frozen=True)
class ShowNotice:
    text: str
    level: str = "info"


@dataclass(frozen=True)
class ClearChat:
    """The conversation was cleared: the chat and the queue start afresh."""


@dataclass(frozen=True)
class ShowConversation:
    """A saved conversation was loaded: the chat shows its text, then `notice`."""

    notice: str


@dataclass(frozen=True)
class SendCommand:
    """A custom command: the session expands it and sends it as a prompt (not while a turn runs)."""

    line: str


@dataclass(frozen=True)
class ModelChanged:
    """The session's model changed: the status line shows the new one; `notice` is a warning to show."""

    notice: str | None = None


@dataclass(frozen=True)
class ChooseTheme:
    """`/theme [name]`: list the app's themes (empty name), or switch to one and remember it."""

    name: str


@dataclass(frozen=True)
class Interactive:
    """A command that asks the user (a picker, a confirmation) before it acts: the screen runs `flow` in a worker,
    giving it itself as a `CommandView`."""

    flow: Callable[[CommandView], Awaitable[None]]


@dataclass(frozen=True)
class OpenScreen:
    name: str  # "help"


@dataclass(frozen=True)
class Quit:
    pass


@dataclass(frozen=True)
class CopyText:
    """Text for the terminal's clipboard (OSC 52); `what` names it in the notice."""

    text: str
    what: str


@dataclass(frozen=True)
class Several:
    """Results shown one after the other."""

    results: tuple[CommandResult, ...]


CommandResult = (ShowMarkdown | ShowNotice | ClearChat | ShowConversation | SendCommand | ModelChanged | ChooseTheme
                 | Interactive | OpenScreen | Quit | Several | CopyText)


@dataclass(frozen=True)
class CommandContext:
    """What the app knows beside the session: the MCP servers' latest status, from the events."""

    mcp_status: Mapping[str, McpServerStatusChanged]


Handler = Callable[["SessionFace", str, CommandContext], Awaitable[CommandResult]]


@dataclass(frozen=True)
class SlashCommand:
    name: str
    help: str
    handler: Handler
    usage: str = ""


COMMANDS: dict[str, SlashCommand] = {}


def command(name: str, help_text: str, usage: str = "") -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        COMMANDS[name] = SlashCommand(name, help_text, handler, usage or f"/{name}")
        return handler
    return register


def command_help() -> dict[str, str]:
    """name -> one-line help, for completion, the palette and F1."""
    return {name: cmd.help for name, cmd in COMMANDS.items()}


def session_commands(session: SessionFace) -> dict[str, str]:
    """The session's own commands (custom commands, extensions' and MCP prompts): name -> one-line help."""
    return {name: f"{cmd.description} ({cmd.origin})" for name, cmd in sorted(session.commands.items())}


async def run_command(session: SessionFace, line: str, context: CommandContext) -> CommandResult:
    name, _, args = line[1:].strip().partition(" ")
    cmd = COMMANDS.get(name.lower())
    if cmd is None and name in session.commands:
        return SendCommand(line.strip())  # a custom command: expanded by the session, sent as a prompt
    if cmd is None:
        return ShowNotice(f"Unknown command: /{name}. Type /help for the list.", "error")
    return await cmd.handler(session, args.strip(), context)
