"""The main screen's controllers, each made when first used (the session's attach, a prompt, a slash command, the
command palette): their modules, and the core's event and display types they bring, are not the first frame's
(`tests/app/test_startup.py`)."""

from __future__ import annotations

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
    of this class and Textual's Screen). Plain properties that keep what they made: the protocols the screen meets
    (`app/view.py`, `app/sessions.py`) name them as read-only properties."""

    _adapter: EventAdapter | None = None
    _turns: Turns | None = None
    _results: CommandResults | None = None

    @property
    def adapter(self) -> EventAdapter:
        """Core events to widget calls; it owns the confirmation queue."""
        if self._adapter is None:
            from gemini_tui.app.event_adapter import EventAdapter

            self._adapter = EventAdapter(cast("ControlledView", self))
        return self._adapter

    @property
    def turns(self) -> Turns:
        """The one running turn, and whether there is one (`busy`)."""
        if self._turns is None:
            from gemini_tui.app.turns import Turns

            self._turns = Turns(cast("ControlledView", self))
        return self._turns

    @property
    def results(self) -> CommandResults:
        """What a slash command returns, shown."""
        if self._results is None:
            from gemini_tui.app.command_results import CommandResults

            self._results = CommandResults(cast("ControlledView", self))
        return self._results

    @property
    def busy(self) -> bool:
        """Whether a turn runs (none has before the turns' controller is made)."""
        return self._turns is not None and self._turns.busy

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
