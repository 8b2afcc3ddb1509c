"""The place inline confirmations are asked: the confirm bar, and what the user decides there handed on."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import on
from textual.containers import Vertical

from gemini_tui.app.widgets.confirm_bar import ConfirmBar

if TYPE_CHECKING:
    from gemini_tui.core.ground.confirmation import Decision
    from gemini_tui.core.ground.events import ConfirmationRequested

Decide = Callable[["ConfirmationRequested", "Decision | None"], None]


class ConfirmArea(Vertical):
    """Holds the `ConfirmBar`; its `Decided` goes to `decide` (the confirmation queue's `resolve`), so no screen
    relays it."""

    def __init__(self, decide: Decide | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.bar = ConfirmBar(id="confirm")
        self.decide = decide

    def compose(self) -> Any:
        yield self.bar

    @on(ConfirmBar.Decided)
    def _decided(self, event: ConfirmBar.Decided) -> None:
        event.stop()
        if self.decide is not None:
            self.decide(event.request, event.decision)
