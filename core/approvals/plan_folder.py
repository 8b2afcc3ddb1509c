"""Approvals room: plan mode's one writable place, the session's plans folder (`~/.gemini/tmp/<project>/<session
id>/plans/`, as Gemini CLI keeps it), and what plan mode's own tools may do in each mode."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

ENTER_PLAN_MODE = "enter_plan_mode"
EXIT_PLAN_MODE = "exit_plan_mode"
ASK_USER = "ask_user"
WRITE_TODOS = "write_todos"
PLAN_FILE_RULE = "plan mode: a plan file in the plans folder"
PLAN_REVISION_RULE = "plan mode: a revision of the plan"


class PlanError(ValueError):
    """A plan file name that does not name a Markdown file in the plans folder."""


class PlanFolder:
    """The plans folder of the running session (`where` follows the session id: `/clear` starts a new one)."""

    def __init__(self, where: Callable[[], Path]) -> None:
        self._where = where

    @property
    def path(self) -> Path:
        return self._where()

    def ensure(self) -> Path:
        folder = self.path
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        return folder

    def is_plan_file(self, path: str) -> bool:
        """A `.md` file directly in the plans folder (links resolved, so none leads out of it)."""
        real = Path(os.path.realpath(path))
        return real.suffix == ".md" and real.parent == Path(os.path.realpath(self.path))

    def resolve(self, name: str) -> Path:
        """`exit_plan_mode`'s `plan_filename`: a bare name in the plans folder (an absolute path inside it is
        accepted too). Raises PlanError naming the folder otherwise."""
        name = name.strip()
        if not name:
            raise PlanError("plan_filename must name the plan file, e.g. \"feature-x.md\".")
        candidate = Path(name) if os.path.isabs(name) else self.path / name
        if not self.is_plan_file(str(candidate)):
            raise PlanError(f"The plan must be a .md file directly in the plans folder {self.path}; "
                            f"{name!r} is not.")
        return candidate


def plan_tool_rule(tool: str, mode: str, interactive: bool) -> tuple[str, str] | None:
    """(verdict, reason) for plan mode's own tools in `mode`, as Gemini CLI's plan policies decide them (entering
    and leaving ask the user, or run unasked headless; ask_user cannot be asked headless); None for other tools."""
    match tool:
        case "enter_plan_mode" if mode == "plan":
            return "deny", "You are already in Plan Mode."
        case "exit_plan_mode" if mode != "plan":
            return "deny", "You are not currently in Plan Mode. Use enter_plan_mode first to design a plan."
        case "enter_plan_mode" | "exit_plan_mode":
            return ("ask", "") if interactive else ("allow", "")
        case "ask_user":
            return ("ask", "") if interactive else ("deny", (
                "Nobody can answer questions in this non-interactive run. Do not ask: choose the most reasonable "
                "option yourself, say which one and why in your answer, and go on."))
        case "write_todos":
            return "allow", ""
    return None


def offered(tool: str, mode: str, interactive: bool) -> bool:
    """Whether plan mode's own tools are declared to the model in `mode`, as Gemini CLI 0.61 declares them:
    enter outside plan mode (not in the app's yolo), exit only in it; ask_user only where a user can answer;
    write_todos wherever it could run unasked (headless: yolo only; never in plan mode)."""
    match tool:
        case "enter_plan_mode":
            return mode != "plan" and not (interactive and mode == "yolo")
        case "exit_plan_mode":
            return mode == "plan"
        case "ask_user":
            return interactive
        case "write_todos":
            return mode != "plan" and (interactive or mode == "yolo")
    return True
