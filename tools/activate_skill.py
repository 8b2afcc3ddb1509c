"""activate_skill: gives the model an Agent Skill's instructions and read access to its folder, after the user's
consent (declared and answered as Gemini CLI 0.61 does; the skills come from core/setup/skills.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import Field

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import InfoConfirmation
from gemini_tui.core.ground.tool_result import ToolErrorKind, ToolResult
from gemini_tui.core.setup.skills import (
    ACTIVATE_SKILL,
    SkillSet,
    activate_description,
    activate_schema,
    activated_text,
    folder_structure,
)
from gemini_tui.core.tooling.needs import CallNeeds
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams


class ActivateSkillParams(ToolParams):
    name: str = Field(description="The name of the skill to activate.")


class ActivateSkillTool(BaseTool[ActivateSkillParams]):
    name = ACTIVATE_SKILL
    display_name = "Activate Skill"
    Params = ActivateSkillParams
    kind = ToolKind.other

    def __init__(self, skills: SkillSet, add_directory: Callable[[Path], Any] | None = None) -> None:
        """`add_directory` lets the tools read the skill's folder once it is active (the workspace widens)."""
        self.skills = skills
        self.add_directory = add_directory
        self.active: list[str] = []

    @property
    def names(self) -> list[str]:
        return [skill.name for skill in self.skills.enabled]

    description = activate_description([])  # the declaration names the skills in force (function_declaration)

    @property
    def parameter_schema(self) -> dict[str, Any]:
        return activate_schema(self.names)

    def function_declaration(self) -> dict[str, Any]:
        return {"name": self.name, "description": activate_description(self.names),
                "parameters": self.parameter_schema}

    def needs(self, params: ActivateSkillParams) -> CallNeeds:
        return CallNeeds()  # not read-only: the user consents (the policy, its rules and grants decide)

    def get_description(self, params: ActivateSkillParams) -> str:
        skill = self.skills.get(params.name)
        return f'"{params.name}": {skill.description}' if skill else f'"{params.name}" (?) unknown skill'

    async def should_confirm_execute(self, params: ActivateSkillParams,
                                     abort_signal: AbortSignal) -> InfoConfirmation | None:
        skill = self.skills.get(params.name)
        if skill is None or skill.disabled:
            return None
        structure = await asyncio.to_thread(folder_structure, skill.folder)
        return InfoConfirmation(title=f"Activate Skill: {skill.name}", prompt=(
            f"You are about to enable the specialized agent skill **{skill.name}**.\n\n**Description:**\n"
            f"{skill.description}\n\n**Resources to be shared with the model:**\n{structure}"))

    async def _execute(self, params: ActivateSkillParams, abort_signal: AbortSignal,
                       context: CallContext) -> ToolResult:
        skill = self.skills.get(params.name)
        if skill is None or skill.disabled:
            message = (f'Skill "{params.name}" not found. Available skills are: '
                       f"{', '.join(self.names)}")
            return ToolResult.failure(ToolErrorKind.invalid_params, f"Error: {message}")
        if self.add_directory is not None:
            self.add_directory(skill.folder)
        structure = await asyncio.to_thread(folder_structure, skill.folder)
        if skill.name not in self.active:
            self.active.append(skill.name)
        return ToolResult(activated_text(skill, structure),
                          f"Skill **{skill.name}** activated. Resources loaded from `{skill.folder}`:\n\n{structure}")
