"""Agents room: the names of the tools that start a subagent and that end its run (a call line names them
without loading the run)."""

from __future__ import annotations

INVOKE_AGENT = "invoke_agent"
COMPLETE_TASK = "complete_task"
