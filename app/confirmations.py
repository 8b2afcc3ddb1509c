"""The queue of pending confirmations: one shown at a time, edits in the diff modal, the rest inline."""

from __future__ import annotations

import dataclasses
from collections import deque
from typing import TYPE_CHECKING

from gemini_tui.core.confirmation import ConfirmationOutcome, Decision, EditConfirmation
from gemini_tui.core.events import ConfirmationRequested

if TYPE_CHECKING:
    from gemini_tui.app.screens.main_screen import MainScreen


class ConfirmationQueue:
    """Resolves each request's future exactly once; requests the core gave up on (cancelled) are dropped."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.pending: deque[ConfirmationRequested] = deque()
        self.showing: ConfirmationRequested | None = None
        self._modal: object | None = None

    def __len__(self) -> int:
        return len(self.pending) + (1 if self.showing is not None else 0)

    def add(self, request: ConfirmationRequested) -> None:
        request.future.add_done_callback(lambda _future: self._withdrawn(request))
        self.pending.append(request)
        if self.showing is None:
            self.show_next()
        else:
            self.screen.confirm_bar.set_waiting(len(self.pending))

    def _withdrawn(self, request: ConfirmationRequested) -> None:
        """The future finished: answered here, or cancelled by the core (Esc, turn over)."""
        if request in self.pending:
            self.pending.remove(request)
        if request is self.showing:
            self.showing = None
            self.screen.confirm_bar.hide()
            modal, self._modal = self._modal, None
            if modal is not None and modal is self.screen.app.screen:
                self.screen.app.pop_screen()
            self.screen.call_later(self.show_next)

    def show_next(self) -> None:
        if self.showing is not None:
            return
        while self.pending and self.pending[0].future.done():
            self.pending.popleft()
        if not self.pending:
            self.screen.focus_prompt()
            self.screen.attention(None)
            return
        request = self.showing = self.pending.popleft()
        self.screen.attention("approval")
        if isinstance(request.details, EditConfirmation):
            self._open_modal(request)
        else:
            self._show_inline(request)

    def _allow_saving(self) -> bool:
        """"Allow always" is offered unless security.disableAlwaysAllow is set."""
        settings = getattr(self.screen.session, "settings", None)
        return not getattr(settings, "disable_always_allow", False)

    def _show_inline(self, request: ConfirmationRequested) -> None:
        bar = self.screen.confirm_bar
        bar.on_typed = self.screen.type_into_prompt
        bar.allow_saving = self._allow_saving()
        bar.show(request, len(self.pending))

    def _open_modal(self, request: ConfirmationRequested) -> None:
        assert isinstance(request.details, EditConfirmation)
        try:
            from gemini_tui.app.screens.diff_review import DiffReviewScreen
        except ImportError:  # the modal lands separately; until then edits are asked inline
            self._show_inline(request)
            return
        details = request.details
        if request.call.reason:  # a protected file: the review says why it asks even in auto_edit
            details = dataclasses.replace(details, title=f"{details.title} · {request.call.reason}")
        modal = DiffReviewScreen(details, on_interrupt=self.screen.action_cancel_turn,
                                 on_typed=self.screen.type_into_prompt, allow_saving=self._allow_saving())
        self._modal = modal
        self.screen.app.push_screen(modal, callback=lambda decision: self.resolve(request, decision))

    def resolve(self, request: ConfirmationRequested, decision: Decision | None) -> None:
        if request is self.showing:
            self._modal = None
        if not request.future.done():
            request.future.set_result(decision or Decision(ConfirmationOutcome.cancel))
        # the done callback moves on to the next request

    def cancel_all(self) -> None:
        for request in [*self.pending, *([self.showing] if self.showing else [])]:
            if not request.future.done():
                request.future.set_result(Decision(ConfirmationOutcome.cancel))
