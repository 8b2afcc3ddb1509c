"""The main screen: status line, chat pane, tool-call queue, inline confirmations, prompt and history panel.

It holds the layout, the key bindings and short handlers. Events reach the widgets through `EventAdapter` (which
sees this screen as an `EventView`), slash commands return typed results that `CommandResults` shows, a turn runs
in `Turns`, and the session is only used through its face (`SessionFace`)."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from textual import events, on, work
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Input, TextArea

from gemini_tui.app.call_log import CallLog, CallRecord
from gemini_tui.app.held_modals import HeldModals
from gemini_tui.app.history_side import HistorySide
from gemini_tui.app.keys_first import HoldsForKeys, KeysFirst
from gemini_tui.app.prompt_queue import PromptQueue
from gemini_tui.app.screen_controllers import ScreenControllers, command_help, palette_commands, session_commands
from gemini_tui.app.startup import apply_theme, root_warning, warm_up_client, warm_up_markdown
from gemini_tui.app.transcript import show_transcript
from gemini_tui.app.widgets.chat import ChatPane
from gemini_tui.app.widgets.confirm_area import ConfirmArea
from gemini_tui.app.widgets.key_bar import KeyBar
from gemini_tui.app.widgets.prompt import PromptArea, PromptInput
from gemini_tui.app.widgets.queue import ToolQueue
from gemini_tui.app.widgets.status import StatusLine
from gemini_tui.app.widgets.todo_list import TodoPanel

if TYPE_CHECKING:
    from gemini_tui.app.widgets.answer import AnswerBlock
    from gemini_tui.app.widgets.history_panel import HistoryPanel
    from gemini_tui.core.ground.events import Event, McpServerStatusChanged
    from gemini_tui.core.persistence.records import LoadedSession
    from gemini_tui.core.session.face import SessionFace

T = TypeVar("T")

REWIND_WINDOW = 1.0  # seconds: Esc twice within this opens the rewind picker
WARM_UP_DELAY = 1.0  # seconds after the first frame: the first frame never waits for the model's SDK


class MainScreen(ScreenControllers, HoldsForKeys, Screen[None]):  # the controllers are made on first use
    COMMANDS: ClassVar = {palette_commands}  # the command palette's entries for this screen, loaded when it opens
    # the prompt has the focus as soon as the screen is composed: a key read in the same instant goes to it (with
    # the default, the chat had it until a later focus call, and keys typed at start were dropped on the way)
    AUTO_FOCUS = "#prompt-input"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "send_now", "Send now"),  # while a prompt waits for MCP servers still connecting
        Binding("escape", "cancel_turn", "Cancel turn"),
        Binding("shift+tab", "cycle_mode", "Approval mode", priority=True),
        Binding("ctrl+y", "toggle_yolo", "YOLO", priority=True),
        Binding("ctrl+b", "toggle_history", "History"), Binding("ctrl+t", "toggle_todos", "Todos"),
        Binding("f1", "app.help", "Help"),
        Binding("escape", "focus_prompt", "Back to the prompt", show=False),
        Binding("up", "edit_queued", "Edit queued prompt", show=False, priority=True),
        Binding("escape", "escape_twice", "Esc Esc: rewind", show=False),
        # the chat scrolls while the prompt keeps the focus (Home/End only when the prompt is empty)
        Binding("pageup", "scroll_chat('page_up')", "Scroll up", show=False, priority=True),
        Binding("pagedown", "scroll_chat('page_down')", "Scroll down", show=False, priority=True),
        Binding("home", "scroll_chat('home')", "Top", show=False, priority=True),
        Binding("end", "scroll_chat('end')", "Bottom", show=False, priority=True),
        Binding("ctrl+home", "scroll_chat('top')", "Top", show=False, priority=True),
        Binding("ctrl+end", "scroll_chat('bottom')", "Bottom", show=False, priority=True),
    ]

    def __init__(self, session: SessionFace | None, root: Path) -> None:
        """`session` may arrive later through `attach`: the first frame does not wait for it to be built."""
        super().__init__()
        self.session: SessionFace = None  # type: ignore[assignment]  # set by attach before anything reads it
        self._initial_session = session
        self.root = root
        self.rest_after_frame = True  # False: the app calls `mount_rest` once it has marked its first frame
        self.status = StatusLine(id="status")
        self.chat = ChatPane(id="chat")
        self.queue = ToolQueue(id="queue")
        self.todos = TodoPanel(id="todos")
        self.prompt = PromptArea(root, command_help, id="prompt")
        self.calls = CallLog()  # one record per tool call; the chat, the queue and the panel render from it
        self.history = HistorySide(self, self.calls)  # the Ctrl+B panel
        self.confirm_area = ConfirmArea(self.resolve, id="confirm-area")  # the bar's decisions, to the adapter
        self.confirm_bar = self.confirm_area.bar
        self.mcp_status: dict[str, McpServerStatusChanged] = {}
        # what the user did before the session was ready (prompts sent, approval mode changed), done in order then
        self._waiting: list[Callable[[], object]] = []
        self.modals = HeldModals(self)  # while another session is in front, its modals and views' updates wait
        self.modals.hold(self.chat.held, self.queue.held, self.history.held)
        self.queued = PromptQueue(id="queued")  # sent while a turn runs: each goes when the turn before it ends
        self._last_escape = 0.0
        # while the user types, what other activity redraws waits for the typing to pause (the prompt comes first)
        self.keys_first = KeysFirst.around(self, lambda: self.prompt.input,
                                           lambda: (self.prompt, self.confirm_area, self.queued))

    def compose(self) -> Any:
        # A session built after the first frame: the frame shows what it needs, the rest is mounted right after it
        # (`mount_rest`); a session given at once may ask for any part (a confirmation) as soon as it is attached.
        rest = (self.todos, self.queue, self.confirm_area, self.queued) if self._initial_session is not None else ()
        yield self.status
        with Horizontal(id="body"), Vertical(id="main-column"):
            yield self.chat
            yield from rest
            yield self.prompt

    def mount_rest(self) -> None:
        """The key bar, and the column's parts hidden until used in their places (unless composed): after the frame."""
        self.mount(KeyBar())
        if self.todos.parent is None:
            self.query_one("#main-column").mount(self.todos, self.queue, self.confirm_area, self.queued,
                                                 before=self.prompt)

    def on_mount(self) -> None:
        self.status.root = str(self.root)
        self.status.model_name = "starting…"
        self.focus_prompt()
        open_keys = getattr(self.app, "open_keys", None)
        if open_keys is not None:  # keys typed as the app started were held for the prompt: it is here
            self.app.call_later(open_keys)
        if self.rest_after_frame:  # the prompt is what must show first
            self.call_after_refresh(self.mount_rest)
        if self._initial_session is not None:
            self.attach(self._initial_session)

    @property
    def ready(self) -> bool:
        return self.session is not None

    def refresh_session_commands(self) -> None:
        """The session's own commands (custom ones, MCP prompts) and MCP resources, for completion."""
        if self.session is not None:
            self.prompt.set_session_commands(session_commands(self.session), self.session.services.resource_mentions())

    def queue_prompt(self, text: str) -> None:
        """Sends `text` as if typed, now or as soon as the session is ready (`-i TEXT`)."""
        self._when_ready(lambda: self.post_message(PromptInput.Submitted(text)))

    def _when_ready(self, action: Callable[[], object]) -> None:
        """Does `action` now, or keeps it (a key the user pressed before the session was built) for when the
        session is: a key pressed in the first instant acts as it would a second later."""
        if self.ready:
            action()
        else:
            self._waiting.append(action)

    def attach(self, session: SessionFace) -> None:
        """The session is built: subscribe to its events, show its state, send what was typed meanwhile."""
        self.session = session
        # subscribed before any prompt is sent, so no event of a turn is missed
        events: AsyncGenerator[Event, None] = session.bus.subscribe()  # type: ignore[assignment]
        self.status.model_name = session.model_label
        self.status.is_offline = session.is_offline
        self.status.approval_mode = str(session.approval_mode)
        self.todos.show(session.todos)  # a resumed session's list
        # shown from the start (a resumed session's share and tokens: all of its history is sent), updated by events
        self.status.context_percent = session.context_used().percent
        self.status.tokens = session.stats.conversation_tokens
        self.status.sandbox = session.sandbox.describe()
        self.refresh_session_commands()  # custom commands complete like built-ins
        if warning := apply_theme(self.app, session.settings):
            self.notify(warning, severity="warning")
        self.chat.show_welcome(session.model_name, session.is_offline, str(self.root))
        if (warning := root_warning(self.root)) is not None:
            self.call_later(self.chat.add_notice, warning, "warning")
        self.run_worker(self.adapter.pump(events), group="events")
        if session.saved.resumed is not None:  # --resume: the chat as it was
            self.show_resumed()
        self.show_startup_notices()
        self.run_worker(self.history.mount(), group="history-panel")
        self.start_services()
        if not session.is_offline:  # the model's SDK, off the event loop, once the first frame is up
            self.set_timer(WARM_UP_DELAY, lambda: self.run_worker(warm_up_client, thread=True, group="warm-up"))
        self.run_worker(warm_up_markdown, thread=True, group="warm-up")
        gc.freeze()  # what exists now lives as long as the screen: collections need not walk it (undone on unmount)
        waiting, self._waiting = self._waiting, []
        for action in waiting:
            self.call_later(action)  # each a message of its own, in the order the keys came (a prompt's is async)

    @work(group="services")
    async def start_services(self) -> None:
        """MCP servers and discovered tools start connecting now, not at the first prompt (no waiting here)."""
        await self.session.start(wait_s=0)

    async def on_unmount(self) -> None:
        gc.unfreeze()
        if self.ready:
            try:
                await asyncio.wait_for(self.session.close(), timeout=3)
            except Exception as exc:  # leaving must never hang or crash on a server
                self.log.warning(f"closing the session: {exc!r}")

    @work(group="resumed")
    async def show_resumed(self) -> None:
        await self.show_transcript(self.session.saved.resumed)  # type: ignore[attr-defined]

    @work(group="notices")
    async def show_startup_notices(self) -> None:
        """Notices published before the app subscribed (settings problems, the offline model)."""
        for notice in self.session.notices:
            await self.chat.add_notice(notice.message, notice.level)

    def focus_prompt(self) -> None:
        self.prompt.input.focus()

    # -- what the event adapter and the confirmations drive (EventView, ConfirmationView) -----------------------------
    def show_in_history(self, record: CallRecord) -> None:
        self.history.show(record)

    def model_label(self) -> str:
        return self.session.model_label

    def allows_saving_grants(self) -> bool:
        return not self.session.settings.disable_always_allow

    def push_modal(self, modal: Screen[T], callback: Callable[[T | None], None]) -> None:
        self.modals.push(modal, callback)

    def pop_modal(self, modal: Screen[Any]) -> None:
        self.modals.pop(modal)

    # -- the prompt ---------------------------------------------------------------------------------------------------
    @on(PromptInput.Submitted)
    async def submitted(self, event: PromptInput.Submitted) -> None:
        text = event.text
        self.chat.follow()  # whatever was sent, its answer (and any confirmation) happens in view
        if not self.ready:
            self._when_ready(lambda: self.post_message(PromptInput.Submitted(text)))
            self.notify("Starting up: your prompt is sent as soon as the session is ready.", timeout=2)
            return
        if text.startswith("/"):
            await self.results.run(text)
            return
        if self.busy:
            self.queued.add(text)
        elif text.startswith("!") and len(text) > 1:
            self.turns.run_shell(text[1:].strip())
        else:
            self.turns.send(text)

    # -- telling the user something waits ----------------------------------------------------------------------------
    def attention(self, reason: str | None) -> None:
        """`approval`: a confirmation waits (window title says so until it is answered, bell + OSC 9);
        `answer`: a long turn ended (bell + OSC 9); None: nothing waits any more (the app's, for every session)."""
        self.app.session_attention(self, reason)  # type: ignore[attr-defined]

    # -- prompts queued while a turn runs ------------------------------------------------------------------------------
    def action_edit_queued(self) -> None:
        """Up in an empty prompt: the last queued prompt comes back into it, out of the queue."""
        if (text := self.queued.take_last()) is not None:
            self.prompt.input.load_text(text)
            self.prompt.input.move_cursor(self.prompt.input.document.end)

    async def show_transcript(self, loaded: LoadedSession) -> None:
        """A resumed, rewound or restored session as the user saw it: its last turns, every call, its todo list."""
        await show_transcript(self.chat, self.calls, self.show_in_history, loaded)
        self.todos.show(self.session.todos)

    # -- keys ---------------------------------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_todos":  # only once the model has a list: the bar keeps its room until then
            return self.todos.todos is not None
        if action == "send_now":  # False hides it, so the bar shows what Esc does now
            return self.busy and self.session.waiting_for_servers
        if action == "cancel_turn":
            return self.busy and not self.session.waiting_for_servers
        if action == "edit_queued":
            return bool(self.queued.prompts) and self.focused is self.prompt.input and not self.prompt.input.text
        if action == "escape_twice":
            return not self.busy
        if action == "focus_prompt":
            return not self.busy and self.focused is not self.prompt.input
        if action == "scroll_chat":
            return self._scroll_key_is_for(str(parameters[0])) == "chat"
        return True

    def action_send_now(self) -> None:
        self.action_cancel_turn()

    def action_cancel_turn(self) -> None:
        if self.busy and self.session.stop_waiting():  # the prompt waited for MCP servers: it goes now
            self.notify("Sent without the tools of the servers still connecting.", timeout=3)
            return
        if self.busy:
            if self.queued.prompts:  # cancelling stops what was lined up too: it comes back to the prompt, unsent
                self.prompt.input.load_text("\n".join([*self.queued.take_all(), self.prompt.input.text]).strip())
            self.turns.cancelling = True
            self.session.cancel()
            self.adapter.confirmations.cancel_all()
            self.notify("Cancelling…", timeout=2)

    def interrupt(self) -> bool:
        """Ctrl+C: clear the prompt, else drop the last queued prompt, else cancel the turn. False when there was
        nothing of these (the app then arms quitting)."""
        if self.prompt.input.text:
            self.prompt.input.clear()
        elif self.queued.take_last() is not None:
            self.notify("Queued prompt removed.", timeout=2)
        elif self.busy and not self.turns.cancelling:
            self.action_cancel_turn()
        else:
            return False
        return True

    def action_toggle_todos(self) -> None:
        shown = self.todos.toggle()
        if self.todos.todos is None:
            self.notify("No todo list yet: the model writes one with write_todos.", timeout=2)
        elif not shown:
            self.notify("Todo list hidden (Ctrl+T shows it).", timeout=2)

    def action_cycle_mode(self) -> None:
        self._when_ready(lambda: self.set_mode(self.session.approval_mode.next()))

    def action_toggle_yolo(self) -> None:
        from gemini_tui.core.approvals.policy import ApprovalMode

        yolo = ApprovalMode.yolo
        self._when_ready(lambda: self.set_mode(ApprovalMode.default if self.session.approval_mode is yolo else yolo))

    def set_mode(self, mode: Any) -> None:
        try:
            self.session.approval_mode = mode
        except PermissionError as exc:  # security.disableYoloMode
            self.notify(str(exc), severity="error", timeout=4)
            return
        self.status.approval_mode = str(mode)
        self.status.model_name = self.session.model_label
        self.notify(f"Approval mode: {mode}", timeout=2)

    def action_focus_prompt(self) -> None:
        self._escape_pressed()
        self.focus_prompt()

    def action_escape_twice(self) -> None:
        self._escape_pressed()

    def _escape_pressed(self) -> None:
        """Esc twice within a second (and no turn running) opens the rewind picker."""
        now = time.monotonic()
        if now - self._last_escape < REWIND_WINDOW and self.ready:
            self._last_escape = 0.0
            from gemini_tui.app.history_commands import in_worker, rewind

            in_worker(self, lambda: rewind(self))
            return
        self._last_escape = now

    def action_scroll_chat(self, where: str) -> None:
        self.chat.scroll_page(where)

    def _scroll_key_is_for(self, where: str) -> str:
        """Who a scrolling key belongs to: the chat, or the focused widget (the history list, a typed text)."""
        focused = self.focused
        if focused is not None and self.history.holds(focused):
            return "widget"
        if where in ("home", "end") and focused is not None \
                and (getattr(focused, "text", "") or getattr(focused, "value", "")):
            return "widget"  # Home/End move the cursor in a prompt that has text; Ctrl+Home/End still scroll
        return "chat"

    def on_key(self, event: events.Key) -> None:
        """A printable key typed while the focus is on the chat (a card) goes to the prompt, not nowhere."""
        focused = self.focused
        if not event.is_printable or event.character is None or focused is self.prompt.input:
            return
        if isinstance(focused, Input | TextArea) or (focused is not None and self.confirm_bar in
                                                     focused.ancestors_with_self):
            return  # typing somewhere already, or answering a confirmation (its keys are its own)
        event.stop()
        self.focus_prompt()
        self.prompt.input.insert(event.character)

    def on_resize(self) -> None:
        self.history.fit()

    def action_toggle_history(self) -> None:
        if not self.history.toggle():
            self.focus_prompt()

    async def on_answer_block_copy_requested(self, event: AnswerBlock.CopyRequested) -> None:
        await self.results.copy_text(event.text, event.what)

    def on_history_panel_details_requested(self, event: HistoryPanel.DetailsRequested) -> None:
        """Enter on a call in the history panel: the call in full, over this screen."""
        from gemini_tui.app.screens.history_details import HistoryDetailsScreen

        self.app.push_screen(HistoryDetailsScreen(event.record))

    def action_close_history(self) -> None:
        """Esc in the panel closes it, as its key bar says; a turn keeps running (the next Esc cancels it)."""
        if self.history.is_open:
            self.action_toggle_history()
