"""A session's modals (a diff review, an ask_user question) while another session is shown: held until its own
session shows, so no key meant for the session in front can answer them; one withdrawn while its session was hidden
is taken off when the session shows again. Its views' updates (`HeldUpdates`) are held the same way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.screen import Screen

from gemini_tui.app.held_updates import HeldUpdates


class HeldModals:
    """`mode` is the app's screen mode the session's screens live in (`Sessions` sets it); None: the app's only one."""

    def __init__(self, screen: Screen[Any]) -> None:
        self.screen = screen
        self.mode: str | None = None
        self.held: list[tuple[Screen[Any], Callable[[Any], None]]] = []
        self.stale: list[Screen[Any]] = []  # withdrawn while hidden, still on the session's own stack
        self.views: list[HeldUpdates] = []

    def hold(self, *views: HeldUpdates) -> None:
        """`views` (the chat, the queue, the history panel) keep their updates while the session is hidden."""
        for view in views:
            view.shown = lambda: self.shown
        self.views.extend(views)

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
        self.screen.call_later(self._apply_views)

    async def _apply_views(self) -> None:
        """What the views kept is drawn in one go: one layout at the end, not one per card."""
        with self.screen.app.batch_update():
            for view in self.views:
                await view.apply()
