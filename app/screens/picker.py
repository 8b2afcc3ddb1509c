"""A list to pick one item from (sessions for /resume, checkpoints for /restore, prompts for /rewind): type to
filter, Enter picks, Esc closes. Dismissed with the index of the item picked, or None."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from gemini_tui.app import decision_keys as keys
from gemini_tui.core.ground.terminal_text import clean_terminal_text


class PickerScreen(ModalScreen[int | None]):
    DEFAULT_CSS = """
    PickerScreen { align: center middle; }
    PickerScreen > Vertical { width: 90%; max-width: 120; height: auto; max-height: 80%; border: thick $accent;
                              padding: 0 1; background: $surface; }
    PickerScreen OptionList { height: auto; max-height: 30; }
    PickerScreen .picker-title { text-style: bold; padding: 0 0 1 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("down", "move(1)", "Next", show=False),
        Binding("up", "move(-1)", "Previous", show=False),
    ]

    def __init__(self, title: str, items: list[str], *, filterable: bool = True) -> None:
        super().__init__()
        self.title_text = title
        # items may be saved text (a session's first prompt): shown cleaned, and as plain text, never as markup
        self.items = [clean_terminal_text(item) for item in items]
        self.filterable = filterable
        self.shown: list[int] = list(range(len(items)))

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, classes="picker-title")
            if self.filterable:
                yield Input(placeholder="type to filter", id="picker-filter")
            yield OptionList(*[Option(Text(item)) for item in self.items], id="picker-list")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        if self.items:
            options.highlighted = 0
        (self.query_one(Input) if self.filterable else options).focus()

    @on(Input.Changed, "#picker-filter")
    def filter(self, event: Input.Changed) -> None:
        words = event.value.lower().split()
        self.shown = [i for i, item in enumerate(self.items) if all(w in item.lower() for w in words)]
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(Text(self.items[i])) for i in self.shown])
        if self.shown:
            options.highlighted = 0

    @on(Input.Submitted, "#picker-filter")
    def submit_filter(self) -> None:
        self._pick(self.query_one(OptionList).highlighted)

    @on(OptionList.OptionSelected, "#picker-list")
    def selected(self, event: OptionList.OptionSelected) -> None:
        self._pick(event.option_index)

    def _pick(self, index: int | None) -> None:
        if index is not None and 0 <= index < len(self.shown):
            self.dismiss(self.shown[index])

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if self.shown:
            options.highlighted = ((options.highlighted or 0) + step) % len(self.shown)

    def action_close(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A preview (what a restore will change, a diff) and a question: `y` goes ahead, `n` or Esc does not."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical { width: 90%; max-width: 140; height: 80%; border: thick $warning; padding: 0 1;
                               background: $surface; }
    ConfirmScreen VerticalScroll { height: 1fr; }
    ConfirmScreen .confirm-question { text-style: bold; padding: 1 0 0 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(keys.ALLOW_ONCE, "answer(True)", "Yes"),
        Binding(f"{keys.REJECT},{keys.REJECT_ESC}", "answer(False)", "No"),
    ]

    def __init__(self, body: str, question: str) -> None:
        super().__init__()
        self.body = body
        self.question = question

    def compose(self) -> ComposeResult:
        from rich.text import Text
        from textual.containers import VerticalScroll

        with Vertical():
            with VerticalScroll():
                yield Static(Text(self.body), classes="confirm-body")
            yield Static(f"{self.question}  [y] yes  [n] no", classes="confirm-question")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
