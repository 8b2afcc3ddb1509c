"""Agents room: the built-in subagents, with Gemini CLI 0.61's names, descriptions and inputs (their instructions
are this project's own words)."""

from __future__ import annotations

from typing import Any

from gemini_tui.core.agents.definition import INHERIT, AgentDefinition, AgentSource, OutputShape

CODEBASE_INVESTIGATOR = "codebase_investigator"
GENERALIST = "generalist"

_INVESTIGATOR_DESCRIPTION = (
    "The specialized tool for codebase analysis, architectural mapping, and understanding system-wide "
    "dependencies. Invoke this tool for tasks like vague requests, bug root-cause analysis, system refactoring, "
    "comprehensive feature implementation or to answer questions about the codebase that require investigation. "
    "It returns a structured report with key file paths, symbols, and actionable architectural insights.")

_GENERALIST_BASE = (
    "A general-purpose AI agent with access to all tools. Highly recommended for tasks that are turn-intensive or "
    "involve processing large amounts of data. Use this to keep the main session history lean and efficient. "
    "Excellent for: ")
GENERALIST_DESCRIPTION = (_GENERALIST_BASE + "batch refactoring/error fixing across multiple files, running commands "
                          "with high-volume output, and speculative investigations.")
GENERALIST_PLAN_DESCRIPTION = _GENERALIST_BASE + "large-scale investigation and batch planning across multiple files."

REPORT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "SummaryOfFindings": {"type": "string", "description": (
            "A summary of the investigation's conclusions and insights for the main agent.")},
        "ExplorationTrace": {"type": "array", "items": {"type": "string"}, "description": (
            "A step-by-step list of actions and tools used during the investigation.")},
        "RelevantLocations": {"type": "array", "items": {
            "type": "object",
            "properties": {"FilePath": {"type": "string"}, "Reasoning": {"type": "string"},
                           "KeySymbols": {"type": "array", "items": {"type": "string"}}},
            "required": ["FilePath", "Reasoning", "KeySymbols"]},
            "description": "A list of relevant files and the key symbols within them."},
    },
    "required": ["SummaryOfFindings", "ExplorationTrace", "RelevantLocations"],
}
RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"response": {"type": "string", "description": "The final response from the agent."}},
    "required": ["response"],
}

_INVESTIGATOR_PROMPT = """You are the Codebase Investigator, a subagent that studies a code base for another agent.
Your job is understanding, not implementation: find the files, types and functions that matter to the objective,
work out why they are written as they are, and what else a change to them would touch (callers, definitions,
tests). Do not write the fix yourself.

Work in steps: start from the strongest clue (a name, an error, a path), read what it leads to, and follow every
import or call you do not yet understand. Keep a short running list of what is settled and what is still open;
finish only when nothing is open.

When you are done, call `complete_task` with a `report` object: a summary of what you found, the steps you took,
and the relevant locations (path, why it matters, key symbols)."""

_INVESTIGATOR_QUERY = """Investigate the code base for this objective, and report everything another agent needs
to act on it:
<objective>
${objective}
</objective>"""

_GENERALIST_PROMPT = """You are a general-purpose subagent working on the user's project for another agent.
Do the task you are given completely with the tools you have, checking your work as you go (read before you
edit; run what proves a change works). You cannot ask anyone for anything: decide, and say in your answer what
you decided and why. When you are done, call `complete_task` with your answer in `result.response`."""


def builtin_agents() -> list[AgentDefinition]:
    return [
        AgentDefinition(
            name=CODEBASE_INVESTIGATOR, display_name="Codebase Investigator Agent",
            description=_INVESTIGATOR_DESCRIPTION, system_prompt=_INVESTIGATOR_PROMPT, model=INHERIT,
            temperature=0.1, max_turns=50, timeout_minutes=10,
            tools=("list_directory", "read_file", "glob", "grep_search"),
            input_name="objective", query=_INVESTIGATOR_QUERY,
            output=OutputShape("report", REPORT_SCHEMA, "The final investigation report as a JSON object."),
            source=AgentSource.builtin),
        AgentDefinition(
            name=GENERALIST, display_name="Generalist Agent", description=GENERALIST_DESCRIPTION,
            plan_description=GENERALIST_PLAN_DESCRIPTION, system_prompt=_GENERALIST_PROMPT, model=INHERIT,
            max_turns=20, timeout_minutes=10, tools=None, input_name="request", query="${request}",
            output=OutputShape("result", RESPONSE_SCHEMA, "The final answer or results of the task."),
            source=AgentSource.builtin),
    ]
