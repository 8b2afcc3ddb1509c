"""The key bar at the bottom: the keys that work right now, redrawn as one line when the bindings change.

Textual's Footer builds one widget per key and rebuilds them on every change of focus or state; in a long
session those rebuilt widgets were kept alive (about 2.5 per change), so this bar renders text instead."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.screen import Screen
from textual.widgets import Static


class KeyBar(Static):
    COMPONENT_CLASSES: ClassVar[set[str]] = {"key-bar--key", "key-bar--description"}

    DEFAULT_CSS = """
    KeyBar { height: 1; dock: bottom; }
    """

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)
        self.refresh_keys()

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen[object]) -> None:
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self.refresh_keys)

    def keys_text(self) -> Text:
        key_style = self.get_component_rich_style("key-bar--key")
        description_style = self.get_component_rich_style("key-bar--description")
        text = Text(no_wrap=True, overflow="ellipsis")
        shown: set[str] = set()
        for active in self.screen.active_bindings.values():
            binding = active.binding
            if not binding.show or not active.enabled or binding.action in shown or not binding.description:
                continue
            shown.add(binding.action)
            text.append(f" {self.app.get_key_display(binding)} ", style=key_style)
            text.append(f"{binding.description} ", style=description_style)
        if self.app.ENABLE_COMMAND_PALETTE:
            text.append(" ^p ", style=key_style)
            text.append("palette ", style=description_style)
        return text

    def refresh_keys(self) -> None:
        if self.is_attached:  # a modal's bar may be asked after its screen closed
            self.update(self.keys_text())
