"""Session room: which model an `auto` alias sends the next request to, by plan mode (general.plan.modelRouting)."""

from __future__ import annotations

from pathlib import Path

from gemini_tui.core.approvals.policy import ApprovalMode
from gemini_tui.core.models.auto_model import AutoModel


class ModelRouting:
    """With an alias configured and routing on: Pro while planning, Flash once a plan was approved (plan mode
    entered again plans with Pro again). Everything else uses the alias's Pro model: Gemini CLI would ask a
    classifier model per request there, which is not done here. A concrete model name is never routed."""

    def __init__(self, alias: AutoModel | None, enabled: bool, approved_plan: Path | None = None) -> None:
        self.alias = alias
        self.enabled = enabled
        self.approved_plan = approved_plan  # the last plan approved in this session

    def target(self, mode: ApprovalMode) -> str | None:
        """The model the alias stands for now; None when no alias is configured."""
        if self.alias is None:
            return None
        if self.enabled and mode is not ApprovalMode.plan and self.approved_plan is not None:
            return self.alias.flash
        return self.alias.pro
