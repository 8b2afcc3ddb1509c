"""The display registry: maps each `return_display` type to the factory of the widget that shows it.

A new display type is one widget class and one `register_display(Type, WidgetClass)` call."""

from __future__ import annotations

from typing import cast

from textual.widget import Widget

from gemini_tui.app.displays.factories import WidgetFactory, _factories, register_display

__all__ = ["WidgetFactory", "factory_for", "register_display", "widget_for"]

_builtins_loaded = False


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

    from gemini_tui.core.ground.display import ShellOutput
    from gemini_tui.core.ground.terminal_text import clean_terminal_text, clean_value

    shown = clean_value(display)
    if isinstance(display, ShellOutput):  # its output keeps colours and progress-bar redraws; its display parses them
        output = clean_terminal_text(display.output, keep_sgr=True, keep_cr=True)
        shown = dataclasses.replace(cast(ShellOutput, shown), output=output)
    return factory_for(type(display))(shown)


def _load_builtins() -> None:
    global _builtins_loaded
    if _builtins_loaded:
        return
    _builtins_loaded = True
    # imported here, not at the top: each module registers itself (through `factories`) when first imported
    from gemini_tui.app.diff.file_diff import FileDiffDisplay
    from gemini_tui.app.displays import (  # noqa: F401
        agent_report,
        directory_listing,
        error,
        fallback,
        file_content,
        file_list,
        markdown_text,
        mcp_result,
        search_answer,
        search_matches,
        shell_output,
        web_page,
    )
    from gemini_tui.core.ground.display import FileDiff

    register_display(FileDiff, FileDiffDisplay)
