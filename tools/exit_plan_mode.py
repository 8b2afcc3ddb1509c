"""exit_plan_mode: the model presents its plan file for approval and plan mode ends (declared and answered as
Gemini CLI 0.61 does). In the app the user reads the plan and picks how edits go on: auto-accepted, or each one
reviewed; headless it ends unasked and the run goes on in yolo, as Gemini CLI's does."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import Field

from gemini_tui.core.approvals.plan_folder import EXIT_PLAN_MODE, PlanError, PlanFolder, offered
from gemini_tui.core.approvals.policy import ApprovalMode
from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import ConfirmationOutcome, InfoConfirmation
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.tooling.needs import CallNeeds
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams

DECLARATION: dict[str, Any] = {
    "name": EXIT_PLAN_MODE,
    "description": "Finalizes the planning phase and transitions to implementation by presenting the plan for "
                   "formal user approval. You MUST reach an informal agreement with the user in the chat regarding "
                   "the proposed strategy BEFORE calling this tool. This tool MUST be used to exit Plan Mode before "
                   "any source code edits can be performed.",
    "parametersJsonSchema": {
        "type": "object",
        "required": ["plan_filename"],
        "properties": {
            "plan_filename": {"type": "string", "description": 'The filename of the finalized plan (e.g., '
                                                               '"feature-x.md"). Do not provide an absolute path.'},
        },
    },
}
# how each way on is said to the model (Gemini CLI's words for the modes)
MODE_WORDS = {
    ApprovalMode.default: "Default mode (edits will require confirmation)",
    ApprovalMode.auto_edit: "Auto-Edit mode (edits will be applied automatically)",
    ApprovalMode.yolo: "YOLO mode (all tool calls auto-approved)",
}
# the user's two ways on from the plan approval: every edit applied, or each one reviewed
WAY_ON = {ConfirmationOutcome.proceed_always: ApprovalMode.auto_edit,
          ConfirmationOutcome.proceed_once: ApprovalMode.default}


class ExitPlanModeParams(ToolParams):
    plan_filename: str = Field(description='The filename of the finalized plan (e.g., "feature-x.md").')


class ExitPlanModeTool(BaseTool[ExitPlanModeParams]):
    name = EXIT_PLAN_MODE
    display_name = "Exit Plan Mode"
    description = DECLARATION["description"]
    Params = ExitPlanModeParams
    kind = ToolKind.other

    def __init__(self, switch: Callable[[ApprovalMode, str], None], plans: PlanFolder,
                 interactive: Callable[[], bool], approved: Callable[[Path], None] | None = None) -> None:
        """`approved` hears of the approved plan before the mode switch (model routing follows it)."""
        self.switch = switch
        self.approved = approved
        self.plans = plans
        self.interactive = interactive

    def function_declaration(self) -> dict[str, Any]:
        return DECLARATION

    def offered(self, mode: str, interactive: bool) -> bool:
        return offered(self.name, mode, interactive)

    def check_params(self, params: ExitPlanModeParams) -> ToolError | None:
        try:
            self.plans.resolve(params.plan_filename)
        except PlanError as exc:
            return ToolError(ToolErrorKind.invalid_params, str(exc))
        return None

    def needs(self, params: ExitPlanModeParams) -> CallNeeds:
        return CallNeeds()  # the plan-mode rules decide (core/approvals/plan_folder.py)

    def get_description(self, params: ExitPlanModeParams) -> str:
        return f"Requesting plan approval for: {self.plans.path / params.plan_filename.strip()}"

    async def _plan(self, params: ExitPlanModeParams) -> tuple[Path, str] | str:
        """(path, text) of the plan, or why there is none to approve."""
        path = self.plans.resolve(params.plan_filename)
        try:
            text = await asyncio.to_thread(path.read_text, encoding="utf-8")
        except FileNotFoundError:
            return (f"Plan file does not exist: {params.plan_filename}. You must create the plan file before "
                    "requesting approval.")
        except (OSError, UnicodeDecodeError) as exc:
            return f"Failed to read plan file: {exc}"
        if not text.strip():
            return "Plan file is empty. You must write content to the plan file before requesting approval."
        return path, text

    async def should_confirm_execute(self, params: ExitPlanModeParams,
                                     abort_signal: AbortSignal) -> InfoConfirmation | None:
        plan = await self._plan(params)
        if isinstance(plan, str):
            return None  # nothing to approve: the call fails and says why
        path, text = plan
        return InfoConfirmation(title="Plan Approval", prompt=text, plan_path=str(path))

    async def _execute(self, params: ExitPlanModeParams, abort_signal: AbortSignal,
                       context: CallContext) -> ToolResult:
        plan = await self._plan(params)
        if isinstance(plan, str):
            return ToolResult.failure(ToolErrorKind.invalid_params, plan, "Error: Invalid plan")
        path, _ = plan
        answer = context.answer
        if answer is None:  # nobody was asked: headless, where the run goes on unasked (Gemini CLI's yolo)
            mode = ApprovalMode.default if self.interactive() else ApprovalMode.yolo
        else:
            mode = WAY_ON.get(answer.outcome, ApprovalMode.default)
        if self.approved is not None:
            self.approved(path)
        self.switch(mode, f"plan approved: {path}")
        # the user edited the plan while approving it: its new text is told, so no earlier draft is followed
        edited = (f"\n\nThe user edited the plan before approving it. The approved plan now reads:\n\n"
                  f"{answer.new_content.rstrip()}\n") if answer is not None and answer.new_content is not None else ""
        return ToolResult(
            f"Plan approved. Switching to {MODE_WORDS[mode]}.\n\nThe approved implementation plan is stored at: "
            f"{path}\nRead and follow the plan strictly during implementation.{edited}",
            f"Plan approved: {path}" + (" (edited by you)" if edited else ""))
