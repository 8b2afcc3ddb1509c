"""web_fetch: pages fetched (private addresses only when allowed) and turned into readable text."""

from gemini_tui.tools.web_fetch.tool import WebFetchTool

__all__ = ["WebFetchTool"]
