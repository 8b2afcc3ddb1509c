"""A session's modals (a diff review, an ask_user question) while another session is shown: held until its own
session shows, so no key meant for the session in front can answer them; one withdrawn while its session was hidden
is taken off when the session shows again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.screen import Screen


class HeldModals:
    """`mode` is the app's screen mode the session's screens live in (`Sessions` sets it); None: the app's only one."""

    def __init__(self, screen: Screen[Any]) -> None:
        self.screen = screen
        self.mode: str | None = None
        self.held: list[tuple[Screen[Any], Callable[[Any], None]]] = []
        self.stale: list[Screen[Any]] = []  # withdrawn while hidden, still on the session's own stack

    @property
    def shown(self) -> bool:
        return self.mode is None or self.screen.app.current_mode == self.mode

    def push(self, modal: Screen[Any], callback: Callable[[Any], None]) -> None:
        if self.shown:
            self.screen.app.push_screen(modal, callback=callback)
        else:
            self.held.append((modal, callback))

    def pop(self, modal: Screen[Any]) -> None:
        """Closes `modal` if it is still open or held; when its session is hidden, as soon as it shows."""
        self.held = [(each, callback) for each, callback in self.held if each is not modal]
        app = self.screen.app
        if modal is app.screen:
            app.pop_screen()
        elif not self.shown:
            self.stale.append(modal)

    def showing(self) -> None:
        """The session is in front now: what was withdrawn meanwhile goes, what waited opens (in order)."""
        app = self.screen.app
        while self.stale and app.screen in self.stale:
            self.stale.remove(app.screen)
            app.pop_screen()
        self.stale.clear()  # the rest were closed already (answered just before the switch)
        held, self.held = self.held, []
        for modal, callback in held:
            app.push_screen(modal, callback=callback)
