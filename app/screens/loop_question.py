"""The question a suspected loop asks: stop the answer, or let it keep going (the core waits for the answer)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class LoopQuestion(ModalScreen[bool]):
    """Dismissed with True to keep going, False to stop."""

    DEFAULT_CSS = """
    LoopQuestion { align: center middle; }
    LoopQuestion > Vertical { width: 64; height: auto; border: thick $warning; padding: 1 2; background: $surface; }
    LoopQuestion Horizontal { height: auto; margin-top: 1; }
    LoopQuestion Button { margin-right: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s,escape", "answer(False)", "Stop"),
        Binding("k", "answer(True)", "Keep going"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("The model seems to repeat itself: stop / keep going")
            with Horizontal():
                yield Button("Stop (s)", id="stop", variant="warning")
                yield Button("Keep going (k)", id="keep")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "keep")

    def action_answer(self, keep_going: bool) -> None:
        self.dismiss(keep_going)
