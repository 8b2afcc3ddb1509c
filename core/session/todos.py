"""Session room: the model's todo list, read back from the conversation (the last `write_todos` that ran), so the
session file holds it and a resumed or rewound session shows the list its history says."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gemini_tui.core.ground.display import Todo, TodoList
from gemini_tui.core.ground.model_api import Content, FunctionCall, FunctionResponse

WRITE_TODOS = "write_todos"
STATUSES = ("pending", "in_progress", "completed", "cancelled", "blocked")


def todo_list(raw: Any) -> TodoList | None:
    """`write_todos`' `todos` argument as a list; None when it is not one (an invalid call changed nothing)."""
    if not isinstance(raw, list):
        return None
    todos = []
    for item in raw:
        if not isinstance(item, dict) or item.get("status") not in STATUSES:
            return None
        description = item.get("description")
        if not isinstance(description, str) or not description.strip():
            return None
        todos.append(Todo(description, str(item["status"])))
    return TodoList(tuple(todos))


def latest_todos(contents: Iterable[Content]) -> TodoList | None:
    """The list of the last `write_todos` call whose response was not an error."""
    calls: dict[str, FunctionCall] = {}
    latest: TodoList | None = None
    for content in contents:
        for part in content.parts:
            if isinstance(part, FunctionCall) and part.name == WRITE_TODOS:
                calls[part.id] = part
            elif isinstance(part, FunctionResponse) and part.name == WRITE_TODOS and "error" not in part.response:
                call = calls.get(part.id)
                if call is not None and (found := todo_list(call.args.get("todos"))) is not None:
                    latest = found
    return latest
