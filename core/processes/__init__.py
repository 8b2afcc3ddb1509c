"""Child processes: the environment a child gets, the sandbox (bubblewrap), the shell grammar that reads a
command line, process groups ended at exit, and the cleaning of terminal text before it is shown.

Knows nothing of tools or policy: it answers "what does this command line say" and "run this, contained"."""

from gemini_tui.core.processes.child_env import helper_environment
from gemini_tui.core.processes.sandbox import Sandbox, SandboxUnavailable
from gemini_tui.core.processes.shell_commands import ShellAnalysis, analyze
from gemini_tui.core.processes.terminal_text import clean_terminal_text

__all__ = ["Sandbox", "SandboxUnavailable", "ShellAnalysis", "analyze", "clean_terminal_text", "helper_environment"]
