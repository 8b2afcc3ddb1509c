"""Inline confirmation above the prompt for commands, MCP tools and fetches: the same keys as the diff modal.

It takes keys only once typing has paused (app/typing_guard.py): until then the focus stays in the prompt, so
text typed for the next prompt lands there and can never answer the confirmation."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static

from gemini_tui.app import decision_keys as keys
from gemini_tui.app.external_editor import editor_command, run_editor
from gemini_tui.app.typing_guard import GRACE_PERIOD, TypingGuard, bound_keys
from gemini_tui.app.widgets.call_format import asked_by
from gemini_tui.core.ground.terminal_text import clean_terminal_text

if TYPE_CHECKING:
    from gemini_tui.core.ground.confirmation import Decision
    from gemini_tui.core.ground.events import ConfirmationRequested

# The confirmation types are imported where a confirmation is shown or answered: the bar is there, hidden, at the
# first frame, which waits for none of them.


def describe(request: ConfirmationRequested, plan: str | None = None) -> tuple[str, str]:
    """(title, body) for the request: what will run, in the user's words, and why it asks (`plan`: the plan's text
    as the user's editor left it)."""
    title, body = _describe(request, plan)
    title = asked_by(request.call, title)
    return title, f"{body}\n{asked_because(request)}" if request.call.rule else body


def asked_because(request: ConfirmationRequested) -> str:
    """The approval policy's rule (and reason) that made this call ask."""
    reason = f" — {request.call.reason}" if request.call.reason else ""
    return f"asks because: {request.call.rule}{reason}"


def _describe(request: ConfirmationRequested, plan: str | None = None) -> tuple[str, str]:
    from gemini_tui.core.ground.confirmation import ExecConfirmation, InfoConfirmation, McpConfirmation

    match request.details:
        case ExecConfirmation(title=title, command=command, directory=directory):
            where = f"  (in {directory})" if directory else ""
            return title or "Run this command?", f"$ {command}{where}"
        case McpConfirmation(title=title, server_name=server, tool_display_name=tool, arguments=arguments):
            return title or "Call this MCP tool?", f"{server} › {tool} {arguments}".rstrip()
        case InfoConfirmation(prompt=prompt, plan_path=plan_path) if plan_path:
            # the plan's two ways on, in the one key map: y = each edit reviewed, a = edits applied
            return f"Approve the plan {plan_path}?", (
                f"{(prompt if plan is None else plan).rstrip()}\n\ny: approve, then accept each edit · a: approve and "
                "auto-accept edits · n/Esc: keep planning · r: say what to change · ctrl+x: edit the plan in $EDITOR")
        case InfoConfirmation(title=title, prompt=prompt, urls=urls):
            body = prompt + ("\n" + "\n".join(urls) if urls else "")
            return title or "Allow?", body
    return "Allow this tool call?", request.call.description or request.call.name


def grant_subject(request: ConfirmationRequested) -> str:
    """What "for the session" / "always" would allow, in words: the commands, the MCP tool, or ""."""
    from gemini_tui.core.ground.confirmation import ExecConfirmation, McpConfirmation

    match request.details:
        case ExecConfirmation(root_commands=roots) if roots:
            return ", ".join(roots)
        case McpConfirmation(tool_display_name=tool):
            return tool
    return ""


def always_label(request: ConfirmationRequested) -> str:
    subject = grant_subject(request)
    return f"allow {subject} for the session" if subject else "allow for the session"


def saved_label(request: ConfirmationRequested) -> str:
    subject = grant_subject(request)
    return f"always allow {subject} here" if subject else "always allow here"


class ConfirmBar(Vertical, can_focus=True):
    """Shows one request at a time and a count of those waiting. It listens once typing has paused for
    `GRACE_PERIOD`; a key it gets sooner re-arms the wait and goes to the prompt."""

    GRACE_PERIOD = GRACE_PERIOD
    POLL_S = 0.05

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(keys.ALLOW_ONCE, "decide('proceed_once')", "Allow once"),
        Binding(keys.ALLOW_SESSION, "decide('proceed_always')", "Allow for session"),
        Binding(keys.ALLOW_ALWAYS, "decide('proceed_always_and_save')", "Allow always (this folder)"),
        Binding(keys.ALLOW_SERVER, "decide('proceed_always_server')", "Allow server", show=False),
        Binding(keys.REJECT_ESC, "decide('cancel')", "Reject"),
        Binding(keys.REJECT, "decide('cancel')", "Reject", show=False),  # Esc shows it in the key bar
        Binding(keys.REJECT_WITH_REASON, "reject", "Reject with reason…"),
        Binding(keys.EDIT_PLAN, "edit_plan", "Edit plan"),  # only while a plan waits for approval
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
        self.guard = TypingGuard(self.GRACE_PERIOD)
        self.listening = False  # typing has paused since it appeared: keys answer it now
        self.allow_saving = True  # "allow always" offered (security.disableAlwaysAllow turns it off)
        self.on_typed: Any = None  # where keys typed too early go (the main screen's prompt)
        self.edited_plan: str | None = None  # the plan under approval as the user's editor left it
        self.title_line = Static(classes="confirm-title")
        self.body = Static(classes="confirm-body")
        self.keys_line = Static(classes="confirm-keys")
        # the field for a rejection's reason is made the first time one is given: the first frame (where the bar
        # is hidden) does not style an input field it never shows
        self.reason: Input | None = None

    def compose(self) -> Any:
        yield self.title_line
        yield self.body
        yield self.keys_line

    def on_mount(self) -> None:
        self.display = False
        self._poll = self.set_interval(self.POLL_S, self._listen_when_quiet, pause=True)

    def show(self, request: ConfirmationRequested, waiting: int) -> None:
        self.request, self.waiting = request, waiting
        self.edited_plan = None
        self.guard.arm()
        self.listening = False
        title, body = describe(request)
        count = f"  (+{waiting} more waiting)" if waiting else ""
        self.title_line.update(Text(clean_terminal_text(f"⚠ {title}{count}"), style="bold"))
        self.body.update(Text(clean_terminal_text(body)))
        self.keys_line.update(Text("(your typing stays in the prompt; this takes keys once you pause)"))
        self._put_reason_away()
        self.display = True
        self._poll.resume()

    def _keys_text(self, request: ConfirmationRequested) -> str:
        from gemini_tui.core.ground.confirmation import McpConfirmation

        text = f"y allow once · a {always_label(request)}"
        if self.allow_saving:
            text += f" · A {saved_label(request)}"
        if isinstance(request.details, McpConfirmation):
            text += f" · s allow every tool of {request.details.server_name}"
        return text + " · n/Esc reject · r reject with a reason"

    def _listen_when_quiet(self) -> None:
        """Takes the focus (and so the keys) once nobody has typed for the grace period."""
        if self.request is None or self.listening:
            self._poll.pause()
            return
        if self.guard.quiet(self.app):
            self.listening = True
            self._poll.pause()
            self.keys_line.update(Text(clean_terminal_text(self._keys_text(self.request))))
            self.focus()
            self.refresh_bindings()

    def set_waiting(self, waiting: int) -> None:
        if self.request is not None:
            self.waiting = waiting
            count = f"  (+{waiting} more waiting)" if waiting else ""
            self.title_line.update(Text(clean_terminal_text(f"⚠ {describe(self.request)[0]}{count}"), style="bold"))

    def hide(self) -> None:
        self.request = None
        self.listening = False
        self.display = False

    def _in_grace(self) -> bool:
        return not (self.listening and self.guard.ready())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        from gemini_tui.core.ground.confirmation import McpConfirmation

        if action == "decide" and parameters and parameters[0] == "proceed_always_server":
            return isinstance(self.request and self.request.details, McpConfirmation)
        if action == "edit_plan":
            return self._plan_path() is not None
        if action == "decide" and parameters and parameters[0] == "proceed_always_and_save":
            return self.request is not None and self.allow_saving
        return self.request is not None

    def action_decide(self, outcome: str) -> None:
        from gemini_tui.core.ground.confirmation import ConfirmationOutcome, Decision, McpConfirmation

        if self.request is None or self._in_grace():
            return
        chosen = ConfirmationOutcome(outcome)
        if chosen is ConfirmationOutcome.proceed_always and isinstance(self.request.details, McpConfirmation):
            chosen = ConfirmationOutcome.proceed_always_tool
        edited = self.edited_plan if chosen is not ConfirmationOutcome.cancel else None
        self._decide(Decision(chosen, new_content=edited))  # an edited plan: the model is told its new text

    def _plan_path(self) -> str | None:
        from gemini_tui.core.ground.confirmation import InfoConfirmation

        request = self.request
        if request is not None and isinstance(request.details, InfoConfirmation) and request.details.plan_path:
            return request.details.plan_path
        return None

    async def action_edit_plan(self) -> None:
        """Ctrl+X: the plan file itself in $VISUAL/$EDITOR (as Gemini CLI edits it); the bar then shows what the
        editor saved, and approving tells the model that text."""
        from gemini_tui.core.ground.confirmation import InfoConfirmation

        request, path = self.request, self._plan_path()
        if request is None or path is None or self._in_grace():
            return
        command = editor_command()
        if command is None:
            self.app.notify("Set $VISUAL or $EDITOR to edit the plan in your editor.", timeout=4)
            return
        try:
            code = await run_editor(self.app, [*command, path])
            text = await asyncio.to_thread(Path(path).read_text, encoding="utf-8")
        except (OSError, ValueError) as exc:
            self.app.notify(clean_terminal_text(f"Could not edit the plan: {exc}"), severity="error", timeout=8)
            return
        if self.request is not request:
            return
        if code != 0:
            self.app.notify(f"The editor exited with status {code}.", severity="warning", timeout=4)
        assert isinstance(request.details, InfoConfirmation)
        if text != (self.edited_plan if self.edited_plan is not None else request.details.prompt):
            self.edited_plan = text
            self.body.update(Text(clean_terminal_text(describe(request, text)[1])))
        self.focus()

    def _put_reason_away(self) -> None:
        if self.reason is not None:
            self.reason.display = False
            self.reason.value = ""

    def action_reject(self) -> None:
        if self.request is None or self._in_grace():
            return
        if self.reason is None:
            self.reason = Input(placeholder="Why? (optional, goes to the model) Enter sends, Esc skips",
                                classes="confirm-reason")
            self.mount(self.reason)
        self.reason.display = True
        self.reason.focus()

    @on(Input.Submitted, ".confirm-reason")
    def reason_given(self, event: Input.Submitted) -> None:
        from gemini_tui.core.ground.confirmation import ConfirmationOutcome, Decision

        event.stop()
        reason = event.value.strip() or None
        self._decide(Decision(ConfirmationOutcome.cancel, feedback=reason))

    def on_key(self, event: Any) -> None:
        from gemini_tui.core.ground.confirmation import ConfirmationOutcome, Decision

        if self.request is None:
            return
        if self.reason is not None and self.reason.display:
            # Esc in the reason field means "no reason": reject without one
            if event.key == "escape" and self.reason.has_focus:
                event.stop()
                self._decide(Decision(ConfirmationOutcome.cancel))
            return
        if not self.listening or not self.guard.key(event.key in bound_keys(self.BINDINGS), event.time):
            # typed for the prompt (the focus came here by a click, or typing resumed at once): it goes there
            event.stop()
            event.prevent_default()
            if self.on_typed is not None:
                self.on_typed(event)

    def _decide(self, decision: Decision) -> None:
        request = self.request
        if request is None:
            return
        self.hide()
        self.post_message(self.Decided(request, decision))
