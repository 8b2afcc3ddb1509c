"""Session room: which model an `auto` alias sends the next request to, by plan mode (general.plan.modelRouting)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gemini_tui.core.approvals.policy import ApprovalMode
from gemini_tui.core.ground.model_api import ModelClient
from gemini_tui.core.models.auto_model import AutoModel, auto_model


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


class ModelChoice:
    """The session's model: the client the next request goes to, the alias it stands for (routed by mode), and
    how another model is built (`/model NAME`). The session and its parts read `client` at each request."""

    def __init__(self, client: ModelClient, alias: AutoModel | None, routing_enabled: bool,
                 factory: Callable[[str], tuple[ModelClient, str | None]] | None) -> None:
        self.client = client
        self.routing = ModelRouting(alias, routing_enabled)
        self.factory = factory

    @property
    def label(self) -> str:
        """The model as the status line and /about show it: `auto-gemini-3 → gemini-3-pro-preview` for an alias."""
        alias = self.routing.alias
        return f"{alias.alias} → {self.client.model_name}" if alias is not None else self.client.model_name

    def route(self, mode: ApprovalMode) -> None:
        """Points `client` at the model the configured alias stands for in `mode` (nothing without one)."""
        target = self.routing.target(mode)
        if target is not None and target != self.client.model_name and self.factory is not None:
            self.client, _ = self.factory(target)

    def switch(self, name: str, mode: ApprovalMode) -> str | None:
        """Switches to `name` for the next request; returns the notice the new client came with. A model chosen
        by name replaces the configured alias (no routing after it); another alias routes anew."""
        if self.factory is None:
            raise RuntimeError("this session cannot switch models")
        routing = ModelRouting(auto_model(name), self.routing.enabled, self.routing.approved_plan)
        self.client, notice = self.factory(routing.target(mode) or name)
        self.routing = routing
        return notice
