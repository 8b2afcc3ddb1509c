"""The table of display types and their widget factories, which each display module adds its row to."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.widget import Widget

WidgetFactory = Callable[[Any], Widget]

_factories: dict[type, WidgetFactory] = {}


def register_display(display_type: type, widget_factory: WidgetFactory) -> None:
    """Show every `display_type` (and its subclasses, unless they have their own) with `widget_factory`."""
    _factories[display_type] = widget_factory
