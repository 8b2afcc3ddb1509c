"""The key bar at the bottom: the keys that work right now, redrawn as one line when the bindings change.
When they do not fit, descriptions shorten, then the least important keys give way: the palette, then the
approval-mode keys, then the others from the last bound; help goes last. Kept keys stay in binding order.

Textual's Footer builds one widget per key and rebuilds them on every change of focus or state; in a long
session those rebuilt widgets were kept alive (about 2.5 per change), so this bar renders text instead."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.screen import Screen
from textual.widgets import Static


def _shorten(descriptions: list[str]) -> list[str]:
    """One word each: `Clear/cancel (twice quits)` -> `Clear/cancel`; when two would read the same
    (`Allow once`, `Allow for session`) the later one keeps its last word instead (`session`)."""
    short: list[str] = []
    for description in descriptions:
        words = description.split(" (")[0].replace(" / ", " ").split()
        first = words[0].rstrip("…:") if words else description
        short.append(words[-1].rstrip("…:") if first in short and len(words) > 1 else first)
    return short


def _width(entries: list[tuple[str, str]]) -> int:
    return sum(len(key) + 2 + (len(description) + 1 if description else 0) for key, description in entries)


# Textual lists priority bindings (Ctrl+C, Ctrl+Y, Shift+Tab) among or before the focused widget's and the
# screen's, so binding order alone dropped "esc Cancel turn" or a confirmation's "n Reject" before YOLO. The keys
# that answer or stop what is happening now stay longest (help aside, which lists every key); a setting for later
# gives way before any other key, the palette first of all.
NOW_ACTIONS = frozenset({
    "interrupt", "cancel_turn", "screen.close_history",  # Ctrl+C, Esc during a turn, Esc in the history panel
    "send_now",  # Esc while a prompt waits for MCP servers
    "decide('proceed_once')", "decide('cancel')", "reject",  # a confirmation's y / Esc / n (the review's r)
    "approve", "back", "close", "dismiss",  # the review's y and Esc; a modal's Esc
})
SETTING_ACTIONS = frozenset({"toggle_yolo", "cycle_mode"})
PALETTE_ACTION = "command_palette"


def importance(action: str) -> int:
    """Higher stays longer: the palette 0, settings 1, other keys 2, keys about now 3, help 4."""
    if action.endswith("help"):
        return 4
    if action in NOW_ACTIONS:
        return 3
    if action in SETTING_ACTIONS:
        return 1
    return 0 if action == PALETTE_ACTION else 2


def fit_keys(entries: list[tuple[str, str, str]], width: int) -> list[tuple[str, str]]:
    """The keys that fit in `width` cells: whole descriptions, else short ones, else keys dropped, least important
    first (`importance`, then the last bound); the keys kept stay in their order."""
    full = [(key, description) for key, description, _ in entries]
    if _width(full) <= width:
        return full
    short = list(zip([key for key, _ in full], _shorten([description for _, description in full]), strict=True))
    if _width(short) <= width:
        return short
    kept = list(range(len(short)))
    drop_order = sorted(kept, key=lambda index: (importance(entries[index][2]), -index))
    for index in drop_order:
        if _width([short[i] for i in kept]) <= width:
            break
        kept.remove(index)
    return [short[i] for i in kept]


class KeyBar(Static):
    COMPONENT_CLASSES: ClassVar[set[str]] = {"key-bar--key", "key-bar--description"}

    DEFAULT_CSS = """
    KeyBar { height: 1; dock: bottom; }
    """

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)
        # the text holds the theme's colours: a new theme draws it again, once the new styles are in place
        self.watch(self.app, "theme", self._theme_changed, init=False)
        self.refresh_keys()

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen[object]) -> None:
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self.refresh_keys)

    def entries(self) -> list[tuple[str, str, str]]:
        """(key, description, action) of the keys that work now, most important first (binding order)."""
        entries: list[tuple[str, str, str]] = []
        shown: set[str] = set()
        for active in self.screen.active_bindings.values():
            binding = active.binding
            if not binding.show or not active.enabled or binding.action in shown or not binding.description:
                continue
            shown.add(binding.action)
            entries.append((self.app.get_key_display(binding), binding.description, binding.action))
        if self.app.ENABLE_COMMAND_PALETTE:
            entries.append(("^p", "palette", "command_palette"))
        return entries

    def keys_text(self, width: int | None = None) -> Text:
        key_style = self.get_component_rich_style("key-bar--key")
        description_style = self.get_component_rich_style("key-bar--description")
        if width is None:
            width = self.size.width or self.app.size.width
        text = Text(no_wrap=True, overflow="ellipsis")
        for key, description in fit_keys(self.entries(), width):
            text.append(f" {key} ", style=key_style)
            if description:
                text.append(f"{description} ", style=description_style)
        return text

    def on_resize(self) -> None:
        self.refresh_keys()

    def _theme_changed(self) -> None:
        self.call_after_refresh(self.refresh_keys)

    def refresh_keys(self) -> None:
        if self.is_attached:  # a modal's bar may be asked after its screen closed
            self.update(self.keys_text(), layout=False)  # one line, the screen's width: its size never changes
