"""The CLI's front ends run the real Session: they share the core's session fixtures."""

from tests.core.conftest import make_session, tools

__all__ = ["make_session", "tools"]
