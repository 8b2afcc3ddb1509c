"""The main screen's controllers, each made when first used (the session's attach, a prompt, a slash command, the
command palette): their modules, and the core's event and display types they bring, are not the first frame's
(`tests/app/test_startup.py`)."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:
    from textual.command import Provider

    from gemini_tui.app.command_results import CommandResults
    from gemini_tui.app.event_adapter import EventAdapter
    from gemini_tui.app.turns import Turns, TurnView
    from gemini_tui.app.view import EventView, ResultView
    from gemini_tui.core.ground.confirmation import Decision
    from gemini_tui.core.ground.events import ConfirmationRequested
    from gemini_tui.core.session.face import SessionFace

    class ControlledView(EventView, ResultView, TurnView, Protocol):
        """What the three controllers drive between them: the main screen."""


class ScreenControllers:
    """The event adapter, the turns and the slash commands' results, as the main screen's attributes (it is made
    of this class and Textual's Screen)."""

    @cached_property
    def adapter(self) -> EventAdapter:
        """Core events to widget calls; it owns the confirmation queue."""
        from gemini_tui.app.event_adapter import EventAdapter

        return EventAdapter(cast("ControlledView", self))

    @cached_property
    def turns(self) -> Turns:
        """The one running turn, and whether there is one (`busy`)."""
        from gemini_tui.app.turns import Turns

        return Turns(cast("ControlledView", self))

    @cached_property
    def results(self) -> CommandResults:
        """What a slash command returns, shown."""
        from gemini_tui.app.command_results import CommandResults

        return CommandResults(cast("ControlledView", self))

    @property
    def busy(self) -> bool:
        """Whether a turn runs (none has before the turns' controller is made)."""
        return "turns" in self.__dict__ and self.turns.busy

    def resolve(self, request: ConfirmationRequested, decision: Decision | None) -> None:
        """What the user decided in the confirm bar, to the event adapter's confirmation queue."""
        self.adapter.confirmations.resolve(request, decision)


def palette_commands() -> type[Provider]:
    """The command palette's entries (the slash commands), loaded when it first opens."""
    from gemini_tui.app.commands import GeminiCommands

    return GeminiCommands


def command_help() -> dict[str, str]:
    """The slash commands (name -> one-line help), loaded when the prompt first completes one."""
    from gemini_tui.app.slash_commands import command_help

    return command_help()


def session_commands(session: SessionFace) -> dict[str, str]:
    """The session's own commands (custom ones, MCP prompts), for completion."""
    from gemini_tui.app.slash_commands import session_commands

    return session_commands(session)
