"""`/plan [goal]` enters plan mode (and sends the goal as a prompt); `/plan copy` copies the latest plan file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gemini_tui.app.command_registry import CommandContext, CommandResult, CopyText, Interactive, ShowNotice, command

if TYPE_CHECKING:
    from gemini_tui.app.view import CommandView
    from gemini_tui.core.session.face import SessionFace


def latest_plan(folder: Path) -> Path | None:
    """The plan file written last in the plans folder."""
    try:
        plans = [p for p in folder.glob("*.md") if p.is_file()]
    except OSError:
        return None
    return max(plans, key=lambda p: p.stat().st_mtime_ns, default=None)


@command("plan", "Plan mode: research and write a plan before any change (/plan copy: copy the plan)",
         "/plan [goal] | /plan copy")
async def _plan(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    from gemini_tui.core.approvals.policy import ApprovalMode

    plans = getattr(session, "plans", None)
    if args.strip() == "copy":
        found = latest_plan(plans.path) if plans is not None else None
        if found is None:
            return ShowNotice("No plan yet: nothing to copy.", "error")
        return CopyText(found.read_text(encoding="utf-8"), f"the plan {found.name}")
    switch = getattr(session, "switch_mode", None)
    if switch is None:
        return ShowNotice("This session has no plan mode.", "error")
    if session.approval_mode is not ApprovalMode.plan:
        switch(ApprovalMode.plan, "/plan")
    goal = args.strip()
    if not goal:
        return ShowNotice("Plan mode is on: only read-only tools run, and the model writes its plan. Say what to "
                          "plan.")

    async def send(view: CommandView) -> None:
        from gemini_tui.app.widgets.prompt import PromptInput

        view.post_message(PromptInput.Submitted(goal))  # as if typed: queued behind a running turn

    return Interactive(send)
