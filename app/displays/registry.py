"""The display registry: maps each `return_display` type to the factory of the widget that shows it.

A new display type is one widget class and one `register_display(Type, WidgetClass)` call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.widget import Widget

WidgetFactory = Callable[[Any], Widget]

_factories: dict[type, WidgetFactory] = {}
_builtins_loaded = False


def register_display(display_type: type, widget_factory: WidgetFactory) -> None:
    """Show every `display_type` (and its subclasses, unless they have their own) with `widget_factory`."""
    _factories[display_type] = widget_factory


def factory_for(display_type: type) -> WidgetFactory:
    _load_builtins()
    for cls in display_type.__mro__:
        if (factory := _factories.get(cls)) is not None:
            return factory
    return _factories[object]


def widget_for(display: object) -> Widget:
    """The widget for one `return_display` value; unknown types get the generic fallback. What it shows is
    cleaned of terminal controls first (command output keeps its colours)."""
    import dataclasses

    from gemini_tui.core.display import ShellOutput
    from gemini_tui.core.terminal_text import clean_terminal_text, clean_value

    shown = clean_value(display)
    if isinstance(display, ShellOutput):  # its output keeps colours and progress-bar redraws; its display parses them
        shown = dataclasses.replace(shown, output=clean_terminal_text(display.output, keep_sgr=True, keep_cr=True))
    return factory_for(type(display))(shown)


def _load_builtins() -> None:
    global _builtins_loaded
    if _builtins_loaded:
        return
    _builtins_loaded = True
    # imported here, not at the top: each module registers itself and imports this one
    from gemini_tui.app.displays import (  # noqa: F401
        directory_listing,
        error,
        fallback,
        file_content,
        file_diff,
        file_list,
        markdown_text,
        mcp_result,
        search_answer,
        search_matches,
        shell_output,
        web_page,
    )
