"""enter_plan_mode: the model switches to plan mode to research and design before it changes anything (declared
and answered as Gemini CLI 0.61 does; the user is asked in the app, headless it runs unasked)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import Field

from gemini_tui.core.approvals.plan_folder import ENTER_PLAN_MODE, PlanFolder, offered
from gemini_tui.core.approvals.policy import ApprovalMode
from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import InfoConfirmation
from gemini_tui.core.ground.tool_result import ToolResult
from gemini_tui.core.tooling.needs import CallNeeds
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams

# Gemini CLI 0.61's declaration, word for word: a model trained on it calls it the same way here
DECLARATION: dict[str, Any] = {
    "name": ENTER_PLAN_MODE,
    "description": "Switch to Plan Mode to safely research, design, and plan complex changes using read-only "
                   "tools.",
    "parametersJsonSchema": {
        "type": "object",
        "properties": {
            "reason": {"type": "string", "description": "Short reason explaining why you are entering plan mode."},
        },
    },
}


class EnterPlanModeParams(ToolParams):
    reason: str | None = Field(default=None, description="Short reason explaining why you are entering plan mode.")


class EnterPlanModeTool(BaseTool[EnterPlanModeParams]):
    name = ENTER_PLAN_MODE
    display_name = "Enter Plan Mode"
    description = DECLARATION["description"]
    Params = EnterPlanModeParams
    kind = ToolKind.other

    def __init__(self, switch: Callable[[ApprovalMode, str], None], plans: PlanFolder) -> None:
        """`switch` sets the mode (the session makes the plans folder writable as it enters plan mode)."""
        self.switch = switch
        self.plans = plans

    def function_declaration(self) -> dict[str, Any]:
        return DECLARATION

    def offered(self, mode: str, interactive: bool) -> bool:
        return offered(self.name, mode, interactive)

    def needs(self, params: EnterPlanModeParams) -> CallNeeds:
        return CallNeeds()  # the plan-mode rules decide (core/approvals/plan_folder.py)

    def get_description(self, params: EnterPlanModeParams) -> str:
        return params.reason or "Initiating Plan Mode"

    async def should_confirm_execute(self, params: EnterPlanModeParams,
                                     abort_signal: AbortSignal) -> InfoConfirmation | None:
        why = f"\n\nThe model's reason: {params.reason}" if params.reason else ""
        return InfoConfirmation(title="Enter Plan Mode", prompt=(
            "The model asks to switch to plan mode: only read-only tools run, and it writes its plan to the "
            f"plans folder.{why}"))

    async def _execute(self, params: EnterPlanModeParams, abort_signal: AbortSignal,
                       context: CallContext) -> ToolResult:
        self.switch(ApprovalMode.plan, params.reason or "the model entered plan mode")
        shown = f"Switching to Plan mode: {params.reason}" if params.reason else "Switching to Plan mode"
        return ToolResult("Switching to Plan mode.", shown)
