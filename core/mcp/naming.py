"""Function names for MCP tools that Gemini accepts: `^[a-zA-Z_][a-zA-Z0-9_.\\-]{0,63}$`."""

from __future__ import annotations

import re

MAX_NAME = 64
_INVALID = re.compile(r"[^a-zA-Z0-9_.\-]")


def sanitize_function_name(name: str) -> str:
    """Invalid characters become `_`; a leading digit, dot or dash gets a `_` before it; a long name keeps its
    start and its end (the part that usually tells tools apart) around `___`."""
    clean = _INVALID.sub("_", name) or "_"
    if not re.match(r"[a-zA-Z_]", clean[0]):
        clean = "_" + clean
    if len(clean) > MAX_NAME:
        clean = clean[:28] + "___" + clean[-(MAX_NAME - 31):]
    return clean


def mcp_tool_name(server: str, tool: str, *, prefixed: bool) -> str:
    """`server__tool` when several servers are configured (as Gemini CLI names them), else the tool's own name."""
    return sanitize_function_name(f"{server}__{tool}" if prefixed else tool)
