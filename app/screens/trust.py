"""The folder-trust question, asked once on the first start in a folder whose settings need trust."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from gemini_tui.app import decision_keys as keys
from gemini_tui.app.typing_guard import TypingGuard, bound_keys
from gemini_tui.app.widgets.key_bar import KeyBar
from gemini_tui.core.approvals.trust import TrustLevel


class TrustScreen(ModalScreen[TrustLevel | None]):
    """Dismisses with the user's TrustLevel, or None for "not now" (untrusted this run, asked again next
    time). Keys typed before it has been quiet for its grace period go to `on_typed` (the prompt)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(keys.ALLOW_ONCE, "choose('TRUST_FOLDER')", "Trust folder"),
        Binding("p", "choose('TRUST_PARENT')", "Trust parent"),
        Binding(keys.REJECT, "choose('DO_NOT_TRUST')", "Don't trust"),
        Binding(keys.REJECT_ESC, "later", "Not now"),
    ]

    def __init__(self, folder: Path, withheld: list[str], *, grace: float | None = None,
                 on_typed: Callable[[events.Key], None] | None = None) -> None:
        super().__init__()
        self.folder = folder
        self.withheld = withheld
        self.guard = TypingGuard() if grace is None else TypingGuard(grace)
        self.on_typed = on_typed

    def compose(self) -> Any:
        listing = "\n".join(f"  • {item}" for item in self.withheld)
        with Vertical(id="trust"):
            yield Static(Text(f"Do you trust {self.folder}?", style="bold"), id="trust-title")
            yield Static(Text(
                "What it brings can run programs or let tools run without asking:\n"
                f"{listing}\n\n"
                "They apply only in a folder you trust. Until then gemini-tui runs here without them."),
                id="trust-body")
            yield Static(Text(
                f"y  trust this folder\np  trust the parent folder ({self.folder.parent})\n"
                "n  don't trust (not asked again)\nEsc  not now (asked next time)"), id="trust-keys")
        yield KeyBar()

    def on_mount(self) -> None:
        self.guard.arm()

    def on_key(self, event: events.Key) -> None:
        # typed for the prompt: it goes there, not to this question
        if not self.guard.key(event.key in bound_keys(self.BINDINGS), event.time):
            event.stop()
            event.prevent_default()
            if self.on_typed is not None:
                self.on_typed(event)

    def action_choose(self, level: str) -> None:
        if self.guard.ready():
            self.dismiss(TrustLevel(level))

    def action_later(self) -> None:
        if self.guard.ready():
            self.dismiss(None)
