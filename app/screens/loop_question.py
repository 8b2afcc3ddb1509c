"""The question a suspected loop asks: stop the answer, or let it keep going (the core waits for the answer)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from gemini_tui.app import decision_keys as keys


class LoopQuestion(ModalScreen[bool]):
    """Dismissed with True to keep going, False to stop."""

    DEFAULT_CSS = """
    LoopQuestion { align: center middle; }
    LoopQuestion > Vertical { width: 64; height: auto; border: thick $warning; padding: 1 2; background: $surface; }
    LoopQuestion Horizontal { height: auto; margin-top: 1; }
    LoopQuestion Button { margin-right: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(keys.ALLOW_ONCE, "answer(True)", "Keep going"),
        Binding(f"{keys.REJECT},{keys.REJECT_ESC}", "answer(False)", "Stop"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("The model seems to repeat itself: stop / keep going")
            with Horizontal():
                yield Button("Stop (n)", id="stop", variant="warning")
                yield Button("Keep going (y)", id="keep")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "keep")

    def action_answer(self, keep_going: bool) -> None:
        self.dismiss(keep_going)
