"""One turn at a time: a prompt, a custom command or a `!command` runs in the screen's one exclusive worker; while
it runs the app is busy, and when it ends the next queued prompt goes (a long turn rings first)."""

from __future__ import annotations

import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Protocol

from gemini_tui.app.widgets.prompt import PromptInput

if TYPE_CHECKING:
    from textual.message import Message

    from gemini_tui.app.prompt_queue import PromptQueue
    from gemini_tui.app.widgets.chat import ChatPane
    from gemini_tui.app.widgets.queue import ToolQueue
    from gemini_tui.app.widgets.status import StatusLine
    from gemini_tui.core.session.face import SessionFace

ANSWER_NOTIFY_AFTER = 10.0  # seconds: a turn this long rings when it ends (the user has likely looked away)


class TurnView(Protocol):
    """What running a turn drives: the chat, the tool queue, the status line, the queued prompts."""

    session: SessionFace
    chat: ChatPane
    queue: ToolQueue
    status: StatusLine
    queued: PromptQueue

    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Any: ...
    def refresh_bindings(self) -> None: ...
    def post_message(self, message: Message) -> bool: ...
    def attention(self, reason: str | None) -> None: ...


class Turns:
    """`busy` while a turn runs; `cancelling` once the user asked it to stop (a Ctrl+C then has nothing to do)."""

    def __init__(self, view: TurnView) -> None:
        self.view = view
        self.busy = False
        self.cancelling = False
        self._since = 0.0

    def send(self, text: str) -> None:
        """A prompt; `@path` mentions are read by the session."""
        async def turn() -> None:
            await self.view.chat.start_turn(text)
            await self.view.session.send(text)

        self._run(turn())

    def send_command(self, line: str) -> None:
        """A custom command (`/git:msg fix typo`): the session expands it (running its `!{...}` through the
        scheduler, asked like any command) and sends it; the chat's turn was started with the command line."""
        self._run(self.view.session.send_command(line))

    def run_shell(self, command: str) -> None:
        """`!command`: the session runs it through its scheduler (asked like any call) and keeps its output."""
        view = self.view

        async def turn() -> None:
            view.queue.start_turn()  # a `!command` is a turn of its own: no calls of the turn before, closed after
            try:
                await view.chat.start_turn(f"!{command}")
                outcome = await view.session.run_shell(command)
                if not outcome.ran:
                    await view.chat.add_notice(outcome.text, "error")
                await view.chat.close_streams()
            finally:
                view.queue.end_turn()

        self._run(turn())

    def _run(self, turn: Awaitable[object]) -> None:
        async def busy_while() -> None:
            self.set_busy(True)
            try:
                await turn
            finally:
                self.set_busy(False)

        # exclusive: a second turn would cancel the running one, so the callers only start one when not busy
        self.view.run_worker(busy_while(), group="turn", exclusive=True)

    def set_busy(self, busy: bool) -> None:
        view = self.view
        if busy and not self.busy:
            self._since = time.monotonic()
        elif not busy and self.busy and time.monotonic() - self._since >= ANSWER_NOTIFY_AFTER:
            view.attention("answer")  # a long turn ended: the answer waits for the user
        self.busy = busy
        self.cancelling = self.cancelling and busy
        view.status.busy = busy
        view.refresh_bindings()
        if not busy and (text := view.queued.take_next()) is not None:
            view.post_message(PromptInput.Submitted(text))
