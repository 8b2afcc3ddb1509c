"""What the user set up: settings.json at every level into `Settings` (`config`), authentication, GEMINI.md
context and its imports, custom commands, extensions, and the whole of it read once (`user_setup`).

Read at start and on reload; the rest of the core receives the result and never reads files of this kind."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemini_tui.core.ground.lazy_face import lazy_face

if TYPE_CHECKING:
    from gemini_tui.core.setup.auth import Auth, resolve_auth
    from gemini_tui.core.setup.config import McpServerConfig, Settings, load_settings
    from gemini_tui.core.setup.user_setup import UserSetup, load_user_setup

__all__ = ["Auth", "McpServerConfig", "Settings", "UserSetup", "load_settings", "load_user_setup", "resolve_auth"]

__getattr__ = lazy_face(__name__, {
    "gemini_tui.core.setup.auth": ("Auth", "resolve_auth"),
    "gemini_tui.core.setup.config": ("McpServerConfig", "Settings", "load_settings"),
    "gemini_tui.core.setup.user_setup": ("UserSetup", "load_user_setup"),
})
