"""Command palette (Ctrl+P): the slash commands and the main screen's actions, searchable by name.

The main screen lists this provider in its `COMMANDS`; the screen the palette was opened on is its target."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from gemini_tui.app.slash_commands import COMMANDS, session_commands

if TYPE_CHECKING:
    from gemini_tui.app.view import PaletteActions


class GeminiCommands(Provider):
    def _entries(self) -> list[tuple[str, str, Callable[[], object]]]:
        screen = cast("PaletteActions", self.screen)
        entries: list[tuple[str, str, Callable[[], object]]] = [
            (f"/{name}", cmd.help, partial(screen.results.run, f"/{name}"))
            for name, cmd in COMMANDS.items() if cmd.usage == f"/{name}"
        ]
        entries += [(f"/{name}", help_text, partial(screen.results.run, f"/{name}"))
                    for name, help_text in session_commands(screen.session).items()]
        entries += [
            ("Approval mode: cycle", "default → auto_edit → yolo", screen.action_cycle_mode),
            ("Approval mode: toggle yolo", "run every tool without asking", screen.action_toggle_yolo),
            ("Tool history panel", "show or hide every tool call of the session", screen.action_toggle_history),
            ("Help", "keys and commands", self.app.action_help),  # pyright: ignore[reportAttributeAccessIssue]  # the palette opens only in GeminiTuiApp
        ]
        return entries

    async def discover(self) -> Hits:
        for name, help_text, run in self._entries():
            yield DiscoveryHit(name, run, help=help_text)

    async def search(self, query: str) -> AsyncIterator[Hit]:  # type: ignore[override]
        matcher = self.matcher(query)
        for name, help_text, run in self._entries():
            score = matcher.match(f"{name} {help_text}")
            if score > 0:
                yield Hit(score, matcher.highlight(name), run, help=help_text)
