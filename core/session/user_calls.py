"""Tool calls the user asks for by hand (`!command`, `/memory add`): through the scheduler like the model's own,
one at a time with prompts, and what the model is told of them."""

from __future__ import annotations

from typing import Any

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.model_api import FunctionCall
from gemini_tui.core.ground.parts import TextPart
from gemini_tui.core.ground.tool_result import ToolResult
from gemini_tui.core.session.face import ToolOutcome
from gemini_tui.core.session.scheduler import Scheduler, function_response
from gemini_tui.core.session.state import SessionState
from gemini_tui.core.tooling.registry import ToolRegistry


class UserCalls:
    """Runs one tool for the user while no prompt runs (the state's `busy`); Esc cancels it like a prompt."""

    def __init__(self, state: SessionState, registry: ToolRegistry, scheduler: Scheduler) -> None:
        self.state = state
        self.registry = registry
        self.scheduler = scheduler

    async def run(self, tool_name: str, args: dict[str, Any]) -> ToolResult | None:
        """One tool call, shown and asked like any other (None: the tool is disabled)."""
        async with self.state.busy:
            if tool_name not in self.registry:
                return None
            abort = self.state.abort = AbortSignal()
            try:
                return await self.scheduler.run_for_user(tool_name, args, abort)
            finally:
                self.state.abort = None

    async def run_shell(self, command: str) -> ToolOutcome:
        """A `!command`: run_shell_command through the scheduler (asked like the model's own call, shown in the
        queue); the command and its output join the conversation, so the model sees them with the next prompt."""
        result = await self.run("run_shell_command", {"command": command})
        if result is None:
            return ToolOutcome("The shell tool is disabled by the settings.", False, ran=False)
        outcome = outcome_of(result)
        self.state.conversation.append_user([TextPart(
            f"I ran the following shell command:\n```sh\n{command}\n```\n\n"
            f"This produced the following result:\n```\n{outcome.text}\n```\n")])
        self.state.autosave(end=True)
        return outcome

    async def add_memory(self, fact: str) -> ToolOutcome:
        """`/memory add`: save_memory through the scheduler (shown and asked like any call); the tool re-reads
        the memory when it wrote."""
        result = await self.run("save_memory", {"fact": fact})
        if result is None:
            return ToolOutcome("The save_memory tool is not enabled.", False, ran=False)
        return outcome_of(result)


def outcome_of(result: ToolResult) -> ToolOutcome:
    """What the model would be told of `result`, as text."""
    response = function_response(FunctionCall("", "", {}), result).response
    return ToolOutcome(str(response.get("output", response.get("error", ""))), result.error is None)
