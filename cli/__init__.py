"""The composition root: parses the command line and wires tools, core and app together."""

from gemini_tui import __version__

__all__ = ["__version__"]
