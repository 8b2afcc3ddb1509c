"""Child processes: the environment a child gets, the sandbox (bubblewrap) and its places, and process groups ended
at exit. Knows nothing of tools or policy, nor of what a command line means (that is `shell`, the room above):
it answers "run this, contained"."""

from gemini_tui.core.processes.child_env import helper_environment
from gemini_tui.core.processes.sandbox import Sandbox, SandboxUnavailable

__all__ = ["Sandbox", "SandboxUnavailable", "helper_environment"]
