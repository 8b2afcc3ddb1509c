"""Session room: what the system instruction says while plan mode is on: where the plan goes, and how plan mode
ends (the plans folder is named, as Gemini CLI names it, so the model writes only there)."""

from __future__ import annotations

from pathlib import Path


def plan_mode_section(plans_dir: Path, interactive: bool) -> str:
    ending = ("The user reads the plan and approves it (or asks for changes) before anything is built." if interactive
              else "Nobody reviews it in this run: once you call it, implementation starts at once, unasked.")
    ask = ("If a decision is the user's to make, ask it with `ask_user` (multiple choice where you can) before "
           "you write the plan. " if interactive else "")
    return f"""# Approval mode: Plan

Plan mode is on. Research with the read-only tools and design the change; do not make it yet. Every tool that
changes something is refused, except writing the plan.

## Where the plan goes
- Write the plan as one Markdown file (`.md`) directly in `{plans_dir}/`, with `write_file` (absolute path), and
  revise it there with `replace` or `write_file`. Nothing else may be written while plan mode is on.
- The plan names the files to change, the steps in order, and how the result will be checked.

## Ending plan mode
- {ask}When the plan is complete, call `exit_plan_mode` with the plan's file name (for example "feature-x.md").
  {ending}
- Never try to leave plan mode through a shell command."""
