"""replace: exact-text edits, with the correction ladder for near misses."""

from gemini_tui.tools.replace.tool import ReplaceTool

__all__ = ["ReplaceTool"]
