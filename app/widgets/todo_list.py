"""The model's todo list (`write_todos`) beside the tool-call queue: one line per task with its state, redrawn
whenever the model writes the list; Ctrl+T hides and shows it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

if TYPE_CHECKING:
    from gemini_tui.core.ground.display import TodoList

MARKS = {"pending": "○", "in_progress": "◐", "completed": "●", "cancelled": "⊘", "blocked": "✗"}


def todo_text(todos: TodoList) -> Text:
    done = sum(todo.status == "completed" for todo in todos.todos)
    text = Text(f"Todo {done}/{len(todos.todos)}", style="bold")
    for todo in todos.todos:
        style = {"in_progress": "bold", "completed": "dim", "cancelled": "dim strike"}.get(todo.status, "")
        text.append(f"\n {MARKS.get(todo.status, '?')} {todo.description}", style=style)
    return text


class TodoPanel(Static):
    """Shown when the model has a list and the user has not hidden it (Ctrl+T)."""

    DEFAULT_CSS = """
    TodoPanel { height: auto; max-height: 12; padding: 0 1; border-left: thick $accent; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.todos: TodoList | None = None
        self.hidden_by_user = False
        self.display = False

    def show(self, todos: TodoList | None) -> None:
        self.todos = todos if todos is not None and todos.todos else None
        if self.todos is not None:
            self.update(todo_text(self.todos))
        self._place()

    def toggle(self) -> bool:
        """Ctrl+T: hides or shows the list; True when it is now shown."""
        self.hidden_by_user = not self.hidden_by_user
        self._place()
        return not self.hidden_by_user

    def _place(self) -> None:
        self.display = self.todos is not None and not self.hidden_by_user
        if self.is_attached:
            self.screen.refresh_bindings()  # Ctrl+T is offered once there is a list
