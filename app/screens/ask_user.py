"""The model's `ask_user` questions, one after the other: a number key picks an option (several, with Enter, when
the question allows several), `o` answers in your own words, a text question takes a line; Esc dismisses all (the
one key map's reject). Dismissed with the Decision whose `answers` go back to the model."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from gemini_tui.app import decision_keys as keys
from gemini_tui.core.ground.confirmation import ConfirmationOutcome, Decision, Question, QuestionOption

OTHER = "o"  # answer a choice in your own words


def choices(question: Question) -> tuple[QuestionOption, ...]:
    if question.kind == "yesno":
        return QuestionOption("Yes"), QuestionOption("No")
    return question.options if question.kind == "choice" else ()


class AskUserScreen(ModalScreen[Decision]):
    DEFAULT_CSS = """
    AskUserScreen { align: center middle; }
    AskUserScreen > Vertical { width: 80%; max-width: 100; height: auto; border: thick $accent; padding: 1 2;
                               background: $surface; }
    AskUserScreen Input { margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding(keys.REJECT_ESC, "dismiss_all", "Dismiss")]

    def __init__(self, questions: tuple[Question, ...]) -> None:
        super().__init__()
        self.questions = questions
        self.index = 0
        self.answers: dict[str, str] = {}
        self.picked: set[int] = set()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="ask-question")
            yield Input(id="ask-text")

    def on_mount(self) -> None:
        self._show()

    @property
    def question(self) -> Question:
        return self.questions[self.index]

    def _show(self) -> None:
        question, offered = self.question, choices(self.question)
        text = Text(f"Question {self.index + 1}/{len(self.questions)}", style="dim")
        if question.header:
            text.append(f"  [{question.header}]", style="bold")
        text.append(f"\n{question.question}\n")
        for n, option in enumerate(offered, 1):
            mark = "[x] " if n in self.picked else ("[ ] " if question.multi_select else "")
            text.append(f"\n {n}  {mark}{option.label}", style="bold")
            if option.description:
                text.append(f" — {option.description}")
        if offered:
            more = "Enter: done · " if question.multi_select else ""
            text.append(f"\n\n{'1' if len(offered) == 1 else f'1-{len(offered)}'}: pick · {more}o: other · "
                        "Esc: dismiss", style="dim")
        self.query_one("#ask-question", Static).update(text)
        field = self.query_one("#ask-text", Input)
        field.value = ""
        field.placeholder = question.placeholder or "Your answer (Enter sends)"
        field.display = not offered
        field.disabled = bool(offered)  # a hidden field must not take the number keys (Textual focuses it first)
        if not offered:
            field.focus()
        else:
            self.set_focus(None)

    def on_key(self, event: events.Key) -> None:
        offered = choices(self.question)
        field = self.query_one("#ask-text", Input)
        if field.display and field.has_focus:
            return  # typing an answer
        if event.character and event.character.isdigit() and 1 <= int(event.character) <= len(offered):
            event.stop()
            number = int(event.character)
            if self.question.multi_select:
                self.picked ^= {number}
                self._show()
            else:
                self._answer(offered[number - 1].label)
        elif event.character == OTHER and offered:
            event.stop()
            field.display, field.disabled = True, False
            field.focus()
        elif event.key == "enter" and self.question.multi_select and self.picked:
            event.stop()
            self._answer(", ".join(offered[n - 1].label for n in sorted(self.picked)))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self._answer(event.value.strip())

    def _answer(self, text: str) -> None:
        self.answers[str(self.index)] = text
        self.picked = set()
        if self.index + 1 < len(self.questions):
            self.index += 1
            self._show()
        else:
            self.dismiss(Decision(ConfirmationOutcome.proceed_once, answers=dict(self.answers)))

    def action_dismiss_all(self) -> None:
        self.dismiss(Decision(ConfirmationOutcome.cancel))
