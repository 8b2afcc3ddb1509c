"""Display widgets: one widget per `return_display` type, found through the registry (`widget_for`)."""

from gemini_tui.app.displays.registry import register_display, widget_for

__all__ = ["register_display", "widget_for"]
