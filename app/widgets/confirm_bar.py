"""Inline confirmation above the prompt for commands, MCP tools and fetches: the same keys as the diff modal."""

from __future__ import annotations

import time
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static

from gemini_tui.core.confirmation import (
    ConfirmationOutcome,
    Decision,
    ExecConfirmation,
    InfoConfirmation,
    McpConfirmation,
)
from gemini_tui.core.events import ConfirmationRequested
from gemini_tui.core.terminal_text import clean_terminal_text


def describe(request: ConfirmationRequested) -> tuple[str, str]:
    """(title, body) for the request: what will run, in the user's words."""
    match request.details:
        case ExecConfirmation(title=title, command=command, directory=directory):
            where = f"  (in {directory})" if directory else ""
            return title or "Run this command?", f"$ {command}{where}"
        case McpConfirmation(title=title, server_name=server, tool_display_name=tool, arguments=arguments):
            return title or "Call this MCP tool?", f"{server} › {tool} {arguments}".rstrip()
        case InfoConfirmation(title=title, prompt=prompt, urls=urls):
            body = prompt + ("\n" + "\n".join(urls) if urls else "")
            return title or "Allow?", body
    return "Allow this tool call?", request.call.description or request.call.name


def always_label(request: ConfirmationRequested) -> str:
    match request.details:
        case ExecConfirmation(root_commands=roots) if roots:
            return f"allow {', '.join(roots)} for the session"
        case McpConfirmation(tool_display_name=tool):
            return f"always allow {tool}"
    return "allow for the session"


class ConfirmBar(Vertical, can_focus=True):
    """Shows one request at a time and a count of those waiting. Keys typed in the grace period are ignored."""

    GRACE_PERIOD = 0.3

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "decide('proceed_once')", "Allow once"),
        Binding("a", "decide('proceed_always')", "Allow for session"),
        Binding("s", "decide('proceed_always_server')", "Allow server", show=False),
        Binding("n", "reject", "Reject (reason)"),
        Binding("escape", "decide('cancel')", "Reject"),
    ]

    class Decided(Message):
        def __init__(self, request: ConfirmationRequested, decision: Decision) -> None:
            super().__init__()
            self.request = request
            self.decision = decision

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.request: ConfirmationRequested | None = None
        self.waiting = 0
        self.shown_at = 0.0
        self.title_line = Static(classes="confirm-title")
        self.body = Static(classes="confirm-body")
        self.keys_line = Static(classes="confirm-keys")
        self.reason = Input(placeholder="Why? (optional, goes to the model) Enter sends, Esc skips",
                            classes="confirm-reason")

    def compose(self) -> Any:
        yield self.title_line
        yield self.body
        yield self.keys_line
        yield self.reason

    def on_mount(self) -> None:
        self.display = False
        self.reason.display = False

    def show(self, request: ConfirmationRequested, waiting: int) -> None:
        self.request, self.waiting = request, waiting
        self.shown_at = time.monotonic()
        title, body = describe(request)
        count = f"  (+{waiting} more waiting)" if waiting else ""
        self.title_line.update(Text(clean_terminal_text(f"⚠ {title}{count}"), style="bold"))
        self.body.update(Text(clean_terminal_text(body)))
        keys = f"y allow once · a {always_label(request)}"
        if isinstance(request.details, McpConfirmation):
            keys += f" · s allow every tool of {request.details.server_name}"
        keys += " · n reject with a reason · Esc reject"
        self.keys_line.update(Text(keys))
        self.reason.display = False
        self.reason.value = ""
        self.display = True
        self.focus()

    def set_waiting(self, waiting: int) -> None:
        if self.request is not None:
            self.show(self.request, waiting)

    def hide(self) -> None:
        self.request = None
        self.display = False

    def _in_grace(self) -> bool:
        return time.monotonic() - self.shown_at < self.GRACE_PERIOD

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "decide" and parameters and parameters[0] == "proceed_always_server":
            return isinstance(self.request and self.request.details, McpConfirmation)
        return self.request is not None

    def action_decide(self, outcome: str) -> None:
        if self.request is None or self._in_grace():
            return
        chosen = ConfirmationOutcome(outcome)
        if chosen is ConfirmationOutcome.proceed_always and isinstance(self.request.details, McpConfirmation):
            chosen = ConfirmationOutcome.proceed_always_tool
        self._decide(Decision(chosen))

    def action_reject(self) -> None:
        if self.request is None or self._in_grace():
            return
        self.reason.display = True
        self.reason.focus()

    @on(Input.Submitted, ".confirm-reason")
    def reason_given(self, event: Input.Submitted) -> None:
        event.stop()
        reason = event.value.strip() or None
        self._decide(Decision(ConfirmationOutcome.cancel, feedback=reason))

    def on_key(self, event: Any) -> None:
        # Esc in the reason field means "no reason": reject without one
        if event.key == "escape" and self.reason.display and self.reason.has_focus:
            event.stop()
            self._decide(Decision(ConfirmationOutcome.cancel))

    def _decide(self, decision: Decision) -> None:
        request = self.request
        if request is None:
            return
        self.hide()
        self.post_message(self.Decided(request, decision))
