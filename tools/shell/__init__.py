"""run_shell_command: `bash -c` in its own process group, output streamed and captured, rules per command."""

from gemini_tui.tools.shell.tool import ShellTool

__all__ = ["ShellTool"]
