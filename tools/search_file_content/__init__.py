"""search_file_content: a regex over the workspace's files, through rg, git grep or a Python walk, same output."""

from gemini_tui.tools.search_file_content.tool import SearchFileContentTool

__all__ = ["SearchFileContentTool"]
