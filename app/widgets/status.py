"""The status line: model (flagged when offline), approval mode, sandbox, worktree, root, tokens used, MCP servers."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from gemini_tui.app.widgets.status_fit import StatusPart, fit_status
from gemini_tui.core.ground.terminal_text import clean_terminal_text
from gemini_tui.core.workspace.worktree_place import worktree_name_of


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
    worktree: reactive[str] = reactive("")  # the Gemini worktree the root is in, by name (set with the root)

    def render(self) -> Text:
        return self.line(self.size.width or 1000)

    def line(self, width: int) -> Text:
        """The line in `width` cells: parts give way whole, least important first (status_fit.py)."""
        lead = Text(no_wrap=True)
        lead.append(" ◆ ", style="bold")
        parts: list[StatusPart] = []
        model = Text(clean_terminal_text(self.model_name) or "no model", style="bold")
        if self.is_offline:
            model.append(" OFFLINE DEMO ", style="reverse bold")
        parts.append(StatusPart(model, 3))
        mode_style = {"default": "", "auto_edit": "bold", "plan": "bold italic",
                      "yolo": "bold reverse"}.get(self.approval_mode, "")
        parts.append(StatusPart(Text(f"mode: {self.approval_mode}", style=mode_style), 7))
        if self.sandbox:  # right after the mode: both say what runs, and how
            unavailable = self.sandbox == "sandbox unavailable"
            parts.append(StatusPart(Text(self.sandbox, style="bold reverse" if unavailable else ""),
                                    5 if unavailable else 2))
        if self.worktree:  # before the root, which shortens from its start: the name stays whole
            parts.append(StatusPart(Text(f"worktree: {clean_terminal_text(self.worktree)}", style="bold"), 6))
        # a directory's name may hold anything
        parts.append(StatusPart(Text(clean_terminal_text(short_root(self.root))), 0, is_root=True))
        parts.append(StatusPart(Text(f"{format_tokens(self.tokens)} tokens"), 1))
        if self.context_percent >= 0:
            parts.append(StatusPart(Text(f"context {self.context_percent}%",
                                         style="bold" if self.context_percent >= 50 else ""), 6))
        if self.mcp:
            connected = sum(1 for state in self.mcp.values() if state == "connected")
            failed = sum(1 for state in self.mcp.values() if state == "failed")
            mcp = Text(f"MCP {connected}/{len(self.mcp)}")
            if failed:
                mcp.append(f" ({failed} failed)", style="bold")
            parts.append(StatusPart(mcp, 4))
        if self.busy:
            parts.append(StatusPart(Text("working…", style="italic"), 8))
        return fit_status(parts, width, lead)

    def watch_root(self, root: str) -> None:
        self.worktree = (worktree_name_of(Path(root)) or "") if root else ""

    def watch_approval_mode(self, mode: str) -> None:
        self.set_class(mode == "yolo", "-yolo")
        self.set_class(mode == "auto_edit", "-auto-edit")

    def watch_is_offline(self, offline: bool) -> None:
        self.set_class(offline, "-offline")

    def set_mcp_state(self, server: str, state: str) -> None:
        self.mcp = {**self.mcp, server: state}
