"""What the main screen does once the session is built, beside showing it: a warning about where it was started,
the theme the settings name, and the slow imports done off the event loop before they are needed."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def root_warning(root: Path) -> str | None:
    """Started in / or the home directory: every file there is in reach of the tools. Says so."""
    root = root.resolve()
    if root != Path(root.anchor) and root != Path.home().resolve():
        return None
    where = "the filesystem root" if root == Path(root.anchor) else "your home directory"
    return (f"⚠ gemini-tui was started in {where} ({root}): the tools can read and change everything under it. "
            "Start it in a project folder instead.")


def apply_theme(app: Any, settings: Any) -> str | None:
    """gemini-tui's own theme (`geminiTui.theme`), else Gemini CLI's `ui.theme` mapped to the nearest, applied to
    `app`; returns a warning to show, if any."""
    from gemini_tui.app.themes import theme_from_settings

    name, warning = theme_from_settings(settings.tui_theme, settings.ui_theme, app.available_themes)
    if name is not None:
        app.theme = name
    return warning or None


def warm_up_client() -> None:
    """Imports google-genai (run in a thread once the screen is up), so the first prompt does not freeze the app."""
    from gemini_tui.core.models.genai_sdk import genai_sdk

    try:
        genai_sdk()
    except ImportError:  # the client reports this itself when it is used
        pass


def warm_up_markdown() -> None:
    """Imports the answer's renderer (run in a thread), so the first answer does not stall typing (~80 ms)."""
    from gemini_tui.app.widgets.answer import warm_up

    warm_up()
