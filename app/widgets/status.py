"""The status line: model (flagged when offline), approval mode, root, tokens used, MCP servers, sandbox."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from gemini_tui.core.processes.terminal_text import clean_terminal_text


def short_root(root: str) -> str:
    """`/home/me/src/project` -> `~/src/project`: the root as a user would type it."""
    home = str(Path.home())
    if root == home or root.startswith(home + "/"):
        return "~" + root[len(home):]
    return root


def format_tokens(count: int) -> str:
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.1f}M"


class StatusLine(Static):
    """One line at the top. Each part is a reactive; the colours come from the classes in app.tcss."""

    model_name: reactive[str] = reactive("")
    is_offline: reactive[bool] = reactive(False)
    approval_mode: reactive[str] = reactive("default")
    root: reactive[str] = reactive("")
    tokens: reactive[int] = reactive(0)
    context_percent: reactive[int] = reactive(-1)  # of the model's context window; -1 until first estimated
    busy: reactive[bool] = reactive(False)
    mcp: reactive[dict[str, str]] = reactive(dict, always_update=True)
    sandbox: reactive[str] = reactive("")  # "sandbox: bwrap", "no sandbox", "sandbox unavailable"

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(" ◆ ", style="bold")
        text.append(clean_terminal_text(self.model_name) or "no model", style="bold")
        if self.is_offline:
            text.append(" OFFLINE DEMO ", style="reverse bold")
        text.append("  │  ")
        mode_style = {"default": "", "auto_edit": "bold", "plan": "bold italic",
                      "yolo": "bold reverse"}.get(self.approval_mode, "")
        text.append(f"mode: {self.approval_mode}", style=mode_style)
        if self.sandbox:  # right after the mode: both say what runs, and how
            text.append("  │  ")
            text.append(self.sandbox, style="bold reverse" if self.sandbox == "sandbox unavailable" else "")
        text.append("  │  ")
        text.append(clean_terminal_text(short_root(self.root)))  # a directory's name may hold anything
        text.append("  │  ")
        text.append(f"{format_tokens(self.tokens)} tokens")
        if self.context_percent >= 0:
            text.append(f" · context {self.context_percent}%", style="bold" if self.context_percent >= 50 else "")
        if self.mcp:
            connected = sum(1 for state in self.mcp.values() if state == "connected")
            failed = sum(1 for state in self.mcp.values() if state == "failed")
            text.append("  │  ")
            text.append(f"MCP {connected}/{len(self.mcp)}")
            if failed:
                text.append(f" ({failed} failed)", style="bold")
        if self.busy:
            text.append("  │  working…", style="italic")
        return text

    def watch_approval_mode(self, mode: str) -> None:
        self.set_class(mode == "yolo", "-yolo")
        self.set_class(mode == "auto_edit", "-auto-edit")

    def watch_is_offline(self, offline: bool) -> None:
        self.set_class(offline, "-offline")

    def set_mcp_state(self, server: str, state: str) -> None:
        self.mcp = {**self.mcp, server: state}
