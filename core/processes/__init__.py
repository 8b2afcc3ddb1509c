"""Child processes: the environment a child gets, the sandbox (bubblewrap) and its places, and process groups ended
at exit. Knows nothing of tools or policy, nor of what a command line means (that is `shell`, the room above):
it answers "run this, contained"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemini_tui.core.ground.lazy_face import lazy_face

if TYPE_CHECKING:
    from gemini_tui.core.processes.child_env import helper_environment
    from gemini_tui.core.processes.sandbox import Sandbox, SandboxUnavailable

__all__ = ["Sandbox", "SandboxUnavailable", "helper_environment"]

__getattr__ = lazy_face(__name__, {
    "gemini_tui.core.processes.sandbox": ("Sandbox", "SandboxUnavailable"),
    "gemini_tui.core.processes.child_env": ("helper_environment",),
})
