"""write_todos: the model's list of subtasks and where each stands, shown to the user as it changes (declared and
answered as Gemini CLI 0.61 does; the list lives in the conversation, core/session/todos.py)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from gemini_tui.core.approvals.plan_folder import WRITE_TODOS, offered
from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.display import Todo, TodoList
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.tooling.needs import CallNeeds
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams

STATUSES = ["pending", "in_progress", "completed", "cancelled", "blocked"]

# Gemini CLI 0.61's declaration, word for word (the description teaches the model when a list helps)
DESCRIPTION = """This tool can help you list out the current subtasks that are required to be completed for a given user request. The list of subtasks helps you keep track of the current task, organize complex queries and help ensure that you don't miss any steps. With this list, the user can also see the current progress you are making in executing a given task.

Depending on the task complexity, you should first divide a given task into subtasks and then use this tool to list out the subtasks that are required to be completed for a given user request.
Each of the subtasks should be clear and distinct.\x20

Use this tool for complex queries that require multiple steps. If you find that the request is actually complex after you have started executing the user task, create a todo list and use it. If execution of the user task requires multiple steps, planning and generally is higher complexity than a simple Q&A, use this tool.

DO NOT use this tool for simple tasks that can be completed in less than 2 steps. If the user query is simple and straightforward, do not use the tool. If you can respond with an answer in a single turn then this tool is not required.

## Task state definitions

- pending: Work has not begun on a given subtask.
- in_progress: Marked just prior to beginning work on a given subtask. You should only have one subtask as in_progress at a time.
- completed: Subtask was successfully completed with no errors or issues. If the subtask required more steps to complete, update the todo list with the subtasks. All steps should be identified as completed only when they are completed.
- cancelled: As you update the todo list, some tasks are not required anymore due to the dynamic nature of the task. In this case, mark the subtasks as cancelled.
- blocked: Subtask is blocked and cannot be completed at this time.


## Methodology for using this tool
1. Use this todo list as soon as you receive a user request based on the complexity of the task.
2. Keep track of every subtask that you update the list with.
3. Mark a subtask as in_progress before you begin working on it. You should only have one subtask as in_progress at a time.
4. Update the subtask list as you proceed in executing the task. The subtask list is not static and should reflect your progress and current plans, which may evolve as you acquire new information.
5. Mark a subtask as completed when you have completed it.
6. Mark a subtask as cancelled if the subtask is no longer needed.
7. You must update the todo list as soon as you start, stop or cancel a subtask. Don't batch or wait to update the todo list.


## Examples of When to Use the Todo List

<example>
User request: Create a website with a React for creating fancy logos using gemini-2.5-flash-image

ToDo list created by the agent:
1. Initialize a new React project environment (e.g., using Vite).
2. Design and build the core UI components: a text input (prompt field) for the logo description, selection controls for style parameters (if the API supports them), and an image preview area.
3. Implement state management (e.g., React Context or Zustand) to manage the user's input prompt, the API loading status (pending, success, error), and the resulting image data.
4. Create an API service module within the React app (using "fetch" or "axios") to securely format and send the prompt data via an HTTP POST request to the specified "gemini-2.5-flash-image" (Gemini model) endpoint.
5. Implement asynchronous logic to handle the API call: show a loading indicator while the request is pending, retrieve the generated image (e.g., as a URL or base64 string) upon success, and display any errors.
6. Display the returned "fancy logo" from the API response in the preview area component.
7. Add functionality (e.g., a "Download" button) to allow the user to save the generated image file.
8. Deploy the application to a web server or hosting platform.

<reasoning>
The agent used the todo list to break the task into distinct, manageable steps:
1. Building an entire interactive web application from scratch is a highly complex, multi-stage process involving setup, UI development, logic integration, and deployment.
2. The agent inferred the core functionality required for a "logo creator," such as UI controls for customization (Task 3) and an export feature (Task 7), which must be tracked as distinct goals.
3. The agent rightly inferred the requirement of an API service model for interacting with the image model endpoint.
</reasoning>
</example>


## Examples of When NOT to Use the Todo List

<example>
User request: Ensure that the test <test file> passes.

Agent:
<Goes into a loop of running the test, identifying errors, and updating the code until the test passes.>

<reasoning>
The agent did not use the todo list because this task could be completed by a tight loop of execute test->edit->execute test.
</reasoning>
</example>"""  # noqa: E501 (Gemini CLI's text, line by line)

DECLARATION: dict[str, Any] = {
    "name": WRITE_TODOS,
    "description": DESCRIPTION,
    "parametersJsonSchema": {
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "description": "The complete list of todo items. This will replace the existing list.",
                "items": {
                    "type": "object",
                    "description": "A single todo item.",
                    "properties": {
                        "description": {"type": "string", "description": "The description of the task."},
                        "status": {"type": "string", "description": "The current status of the task.",
                                   "enum": STATUSES},
                    },
                    "required": ["description", "status"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["todos"],
        "additionalProperties": False,
    },
}


class TodoItem(BaseModel):
    description: str
    status: Literal["pending", "in_progress", "completed", "cancelled", "blocked"]


class WriteTodosParams(ToolParams):
    todos: list[TodoItem] = Field(description="The complete list of todo items.")


class WriteTodosTool(BaseTool[WriteTodosParams]):
    name = WRITE_TODOS
    display_name = "WriteTodos"
    description = DESCRIPTION
    Params = WriteTodosParams
    kind = ToolKind.other

    def function_declaration(self) -> dict[str, Any]:
        return DECLARATION

    def offered(self, mode: str, interactive: bool) -> bool:
        return offered(self.name, mode, interactive)

    def check_params(self, params: WriteTodosParams) -> ToolError | None:
        if any(not todo.description.strip() for todo in params.todos):
            return ToolError(ToolErrorKind.invalid_params, "Each todo must have a non-empty description string")
        if sum(todo.status == "in_progress" for todo in params.todos) > 1:
            return ToolError(ToolErrorKind.invalid_params,
                             'Invalid parameters: Only one task can be "in_progress" at a time.')
        return None

    def needs(self, params: WriteTodosParams) -> CallNeeds:
        return CallNeeds()  # changes only the list: the plan-mode rules let it run

    def get_description(self, params: WriteTodosParams) -> str:
        return f"Set {len(params.todos)} todo(s)" if params.todos else "Cleared todo list"

    async def _execute(self, params: WriteTodosParams, abort_signal: AbortSignal,
                       context: CallContext) -> ToolResult:
        shown = TodoList(tuple(Todo(todo.description, todo.status) for todo in params.todos))
        if not params.todos:
            return ToolResult("Successfully cleared the todo list.", shown)
        listing = "\n".join(f"{n}. [{todo.status}] {todo.description}" for n, todo in enumerate(params.todos, 1))
        return ToolResult(f"Successfully updated the todo list. The current list is now:\n{listing}", shown)
