"""The queue of pending questions to the user: one shown at a time, edits in the diff modal, the rest inline in
the confirm bar, and a suspected loop's keep-going question (its own modal, beside them). The event adapter owns
it; the "waiting on you" list reads every question still open here."""

from __future__ import annotations

import dataclasses
from collections import deque
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from gemini_tui.app.widgets.call_format import asked_by
from gemini_tui.core.ground.confirmation import ConfirmationOutcome, Decision, EditConfirmation, InfoConfirmation
from gemini_tui.core.ground.events import ConfirmationRequested, LoopSuspected

if TYPE_CHECKING:
    from gemini_tui.app.view import ConfirmationView


class ConfirmationQueue:
    """Resolves each request's future exactly once; requests the core gave up on (cancelled) are dropped."""

    def __init__(self, view: ConfirmationView) -> None:
        self.view = view
        self.pending: deque[ConfirmationRequested] = deque()
        self.showing: ConfirmationRequested | None = None
        self._modal: Screen[Any] | None = None
        self.loops: list[LoopSuspected] = []  # keep-going questions not answered yet

    def __len__(self) -> int:
        return len(self.pending) + (1 if self.showing is not None else 0) + len(self.loops)

    def add(self, request: ConfirmationRequested) -> None:
        request.future.add_done_callback(lambda _future: self._withdrawn(request))
        self.pending.append(request)
        if self.showing is None:
            self.show_next()
        else:
            self.view.confirm_bar.set_waiting(len(self.pending))

    def _withdrawn(self, request: ConfirmationRequested) -> None:
        """The future finished: answered here, or cancelled by the core (Esc, turn over)."""
        if request in self.pending:
            self.pending.remove(request)
        if request is self.showing:
            self.showing = None
            self.view.confirm_bar.hide()
            modal, self._modal = self._modal, None
            if modal is not None:
                self.view.pop_modal(modal)
            self.view.call_later(self.show_next)

    def show_next(self) -> None:
        if self.showing is not None:
            return
        while self.pending and self.pending[0].future.done():
            self.pending.popleft()
        if not self.pending:
            self.view.focus_prompt()
            self.view.attention(None)
            return
        request = self.showing = self.pending.popleft()
        self.view.attention("approval")
        if isinstance(request.details, EditConfirmation):
            self._open_modal(request)
        elif isinstance(request.details, InfoConfirmation) and request.details.questions:
            self._ask(request)
        else:
            self._show_inline(request)

    def _show_inline(self, request: ConfirmationRequested) -> None:
        bar = self.view.confirm_bar
        bar.on_typed = self.view.prompt.input.take_key
        bar.allow_saving = self.view.allows_saving_grants()
        bar.show(request, len(self.pending))

    def _open_modal(self, request: ConfirmationRequested) -> None:
        assert isinstance(request.details, EditConfirmation)
        from gemini_tui.app.screens.diff_review import DiffReviewScreen  # loaded at the first edit, not at launch

        details = request.details
        if request.call.reason:  # a protected file: the review says why it asks even in auto_edit
            details = dataclasses.replace(details, title=f"{details.title} · {request.call.reason}")
        if request.call.agent:  # a subagent's edit: the review names the agent that asks
            details = dataclasses.replace(details, title=asked_by(request.call, details.title or "Review edit"))
        view = self.view
        modal = DiffReviewScreen(details, on_interrupt=view.action_cancel_turn, on_typed=view.prompt.input.take_key,
                                 allow_saving=view.allows_saving_grants())
        self._modal = modal
        self.view.push_modal(modal, lambda decision: self.resolve(request, decision))

    def _ask(self, request: ConfirmationRequested) -> None:
        """`ask_user`: its questions in their own modal (number keys pick, `o` or a text field answers)."""
        assert isinstance(request.details, InfoConfirmation)
        from gemini_tui.app.screens.ask_user import AskUserScreen

        modal = AskUserScreen(request.details.questions)
        self._modal = modal
        self.view.push_modal(modal, lambda decision: self.resolve(request, decision))

    def resolve(self, request: ConfirmationRequested, decision: Decision | None) -> None:
        if request is self.showing:
            self._modal = None
        if not request.future.done():
            request.future.set_result(decision or Decision(ConfirmationOutcome.cancel))
        # the done callback moves on to the next request

    def bring_forward(self, request: ConfirmationRequested) -> None:
        """Picked from the "waiting on you" list: `request` is asked next; one shown inline meanwhile gives way and
        is asked again right after it (a review already open stays: it is answered first)."""
        if request is self.showing or request not in self.pending:
            return
        self.pending.remove(request)
        self.pending.appendleft(request)
        if self.showing is not None and self._modal is None:
            self.pending.insert(1, self.showing)
            self.showing = None
            self.view.confirm_bar.hide()
            self.show_next()

    def ask_to_keep_going(self, question: LoopSuspected) -> None:
        """A suspected loop: the core waits on the question's future for whether the answer may go on. It waits
        on the user like a confirmation (the waiting list names it); answered elsewhere or given up on, its modal
        goes."""
        from gemini_tui.app.screens.loop_question import LoopQuestion

        future = question.future
        modal = LoopQuestion()

        def answer(keep_going: bool | None) -> None:
            if not future.done():
                future.set_result(bool(keep_going))

        def ended(_future: object) -> None:
            if question in self.loops:
                self.loops.remove(question)
            self.view.pop_modal(modal)
            if not len(self):
                self.view.attention(None)

        self.loops.append(question)
        future.add_done_callback(ended)
        self.view.attention("approval")
        self.view.push_modal(modal, answer)

    def cancel_all(self) -> None:
        for request in [*self.pending, *([self.showing] if self.showing else [])]:
            if not request.future.done():
                request.future.set_result(Decision(ConfirmationOutcome.cancel))
        for question in list(self.loops):  # the turn stops: so does its answer
            if not question.future.done():
                question.future.set_result(False)
