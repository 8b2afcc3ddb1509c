"""The todo list read back from the conversation: the last `write_todos` that ran wins; a refused or invalid
one changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from gemini_tui.core.ground.display import Todo, TodoList
from gemini_tui.core.ground.model_api import Content, FunctionCall, FunctionResponse
from gemini_tui.core.session.todos import latest_todos, todo_list

GOOD = [{"description": "read", "status": "completed"}, {"description": "write", "status": "in_progress"}]


def written(call_id: str, todos: Any, *, error: bool = False) -> list[Content]:
    response = {"error": "refused"} if error else {"output": "ok"}
    return [Content("model", [FunctionCall(call_id, "write_todos", {"todos": todos})]),
            Content("user", [FunctionResponse(call_id, "write_todos", response)])]


@pytest.mark.parametrize("raw", [
    None, "a string", [{"description": "x", "status": "someday"}], [{"description": "  ", "status": "pending"}],
    [{"status": "pending"}], ["not a dict"],
])
def test_what_is_not_a_todo_list_is_none(raw: Any) -> None:
    assert todo_list(raw) is None


def test_the_last_write_that_ran_wins() -> None:
    first = written("1", GOOD)
    later_refused = written("2", [{"description": "other", "status": "pending"}], error=True)
    later_invalid = written("3", [{"description": "bad", "status": "nope"}])
    expected = TodoList((Todo("read", "completed"), Todo("write", "in_progress")))
    assert latest_todos(first + later_refused + later_invalid) == expected
    assert latest_todos(later_refused) is None
    assert latest_todos(first + written("4", [])) == TodoList(())  # an emptied list is a list


def test_a_call_without_its_response_has_not_run() -> None:
    assert latest_todos(written("1", GOOD)[:1]) is None
