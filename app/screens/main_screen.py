"""The main screen: status line, chat pane, tool-call queue, inline confirmations, prompt and history panel.

It holds the layout, the key bindings and short handlers. Events reach the widgets through `EventAdapter` (which
sees this screen as an `EventView`), slash commands return typed results that `apply` shows, and the session is
only used through its face (`SessionFace`)."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from rich.text import Text
from textual import events, on, work
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Static, TextArea

from gemini_tui.app.call_log import CallLog, CallRecord
from gemini_tui.app.commands import GeminiCommands
from gemini_tui.app.event_adapter import EventAdapter, compression_mark
from gemini_tui.app.slash_commands import (
    ChooseTheme,
    ClearChat,
    CommandContext,
    CommandResult,
    CopyText,
    Interactive,
    ModelChanged,
    OpenScreen,
    Quit,
    SendCommand,
    Several,
    ShowConversation,
    ShowMarkdown,
    ShowNotice,
    command_help,
    run_command,
    session_commands,
)
from gemini_tui.app.widgets.call_format import short
from gemini_tui.app.widgets.chat import ChatPane
from gemini_tui.app.widgets.confirm_area import ConfirmArea
from gemini_tui.app.widgets.key_bar import KeyBar
from gemini_tui.app.widgets.prompt import PromptArea, PromptInput
from gemini_tui.app.widgets.queue import ToolQueue
from gemini_tui.app.widgets.status import StatusLine
from gemini_tui.app.widgets.todo_list import TodoPanel
from gemini_tui.core.ground.events import Event, McpServerStatusChanged

if TYPE_CHECKING:
    from gemini_tui.app.widgets.history_panel import HistoryPanel
    from gemini_tui.core.session.face import SessionFace

T = TypeVar("T")

ANSWER_NOTIFY_AFTER = 10.0  # seconds: a turn this long rings when it ends (the user has likely looked away)
HISTORY_BESIDE_MIN_WIDTH = 80  # narrower than this, the history panel covers the chat while it is open
RESUMED_TURNS_SHOWN = 12  # turns of a resumed session drawn in the chat
REWIND_WINDOW = 1.0  # seconds: Esc twice within this opens the rewind picker
WARM_UP_DELAY = 1.0  # seconds after the first frame: the first frame never waits for the model's SDK


def history_panel() -> HistoryPanel:
    """The Ctrl+B side panel (imported when it is first mounted, after the first frame)."""
    from gemini_tui.app.widgets.history_panel import HistoryPanel

    return HistoryPanel(id="history")


class MainScreen(Screen[None]):
    COMMANDS: ClassVar = {GeminiCommands}  # the command palette's entries for this screen
    # the prompt has the focus as soon as the screen is composed: a key read in the same instant goes to it (with
    # the default, the chat had it until a later focus call, and keys typed at start were dropped on the way)
    AUTO_FOCUS = "#prompt-input"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "send_now", "Send now"),  # while a prompt waits for MCP servers still connecting
        Binding("escape", "cancel_turn", "Cancel turn"),
        Binding("shift+tab", "cycle_mode", "Approval mode", priority=True),
        Binding("ctrl+y", "toggle_yolo", "YOLO", priority=True),
        Binding("ctrl+b", "toggle_history", "History"),
        Binding("ctrl+t", "toggle_todos", "Todos"),
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
        self.status = StatusLine(id="status")
        self.chat = ChatPane(id="chat")
        self.queue = ToolQueue(id="queue")
        self.todos = TodoPanel(id="todos")
        self.prompt = PromptArea(root, command_help(), id="prompt")
        self.history: Widget = Static(id="history-placeholder")
        self.history_panel: HistoryPanel | None = None
        self.calls = CallLog()  # one record per tool call; the chat, the queue and the panel render from it
        self.adapter = EventAdapter(self)  # it owns the confirmation queue; the area hands it the bar's decisions
        self.confirm_area = ConfirmArea(self.adapter.confirmations.resolve, id="confirm-area")
        self.confirm_bar = self.confirm_area.bar
        self.mcp_status: dict[str, McpServerStatusChanged] = {}
        self.busy = False
        # what the user did before the session was ready (prompts sent, approval mode changed), done in order then
        self._waiting: list[Callable[[], object]] = []
        self._busy_since = 0.0
        self._waiting_title = False
        self.queued: list[str] = []  # sent while a turn ran: each goes when the turn before it ends
        self.queued_view = Static(id="queued")
        self._last_escape = 0.0
        self._cancelling = False  # the running turn was asked to stop: a Ctrl+C then has nothing left to do

    def compose(self) -> Any:
        yield self.status
        with Horizontal(id="body"):
            with Vertical(id="main-column"):
                yield self.chat
                yield self.todos
                yield self.queue
                yield self.confirm_area
                yield self.queued_view
                yield self.prompt
            yield self.history

    def on_mount(self) -> None:
        self.status.root = str(self.root)
        self.status.model_name = "starting…"
        self.history.display = False
        self.queued_view.display = False
        self.focus_prompt()
        open_keys = getattr(self.app, "open_keys", None)
        if open_keys is not None:  # keys typed as the app started were held for the prompt: it is here
            self.app.call_later(open_keys)
        # the key bar comes right after the first frame: the prompt is what must show first
        self.call_after_refresh(self.mount, KeyBar())
        if self._initial_session is not None:
            self.attach(self._initial_session)

    @property
    def ready(self) -> bool:
        return self.session is not None

    def refresh_session_commands(self) -> None:
        """The session's own commands (custom ones, MCP prompts) and MCP resources, for completion."""
        if self.session is None:
            return
        for name in [n for n in self.prompt.commands if ":" in n and n not in session_commands(self.session)]:
            del self.prompt.commands[name]  # a server that went away takes its prompts with it
        self.prompt.commands.update(session_commands(self.session))
        self.prompt.resources = self.session.resource_mentions()

    def queue_prompt(self, text: str) -> None:
        """Sends `text` as if typed, now or as soon as the session is ready (`-i TEXT`)."""
        if self.ready:
            self.post_message(PromptInput.Submitted(text))
        else:
            self._when_ready(lambda: self.post_message(PromptInput.Submitted(text)))

    def _when_ready(self, action: Callable[[], object]) -> None:
        """Keeps `action` (a key the user pressed before the session was built) for when it is: a key pressed in
        the first instant acts as it would a second later."""
        self._waiting.append(action)

    def attach(self, session: SessionFace) -> None:
        """The session is built: subscribe to its events, show its state, send what was typed meanwhile."""
        self.session = session
        # subscribed before any prompt is sent, so no event of a turn is missed
        events: AsyncGenerator[Event, None] = session.bus.subscribe()  # type: ignore[assignment]
        self.status.model_name = session.model_name
        self.status.is_offline = session.is_offline
        self.status.approval_mode = str(session.approval_mode)
        self.todos.show(session.todos)  # a resumed session's list
        # shown from the start (a resumed session's share and tokens: all of its history is sent), updated by events
        self.status.context_percent = session.context_used().percent
        self.status.tokens = session.stats.conversation_tokens
        self.status.sandbox = session.sandbox.describe()
        self.refresh_session_commands()  # custom commands complete like built-ins
        self.apply_theme(session.settings)
        self.chat.show_welcome(session.model_name, session.is_offline, str(self.root))
        self.warn_about_root()
        self.pump_events(events)
        if session.resumed is not None:  # --resume: the chat as it was
            self.show_resumed()
        self.show_startup_notices()
        self.mount_history_panel()
        self.start_services()
        if not session.is_offline:
            self.set_timer(WARM_UP_DELAY, self.warm_up_client)
        self.warm_up_markdown()
        gc.freeze()  # what exists now lives as long as the screen: collections need not walk it (undone on unmount)
        waiting, self._waiting = self._waiting, []
        for action in waiting:
            self.call_later(action)  # each a message of its own, in the order the keys came (a prompt's is async)

    def warn_about_root(self) -> None:
        """Started in / or the home directory: every file there is in reach of the tools. Say so."""
        root = self.root.resolve()
        if root == Path(root.anchor) or root == Path.home().resolve():
            where = "the filesystem root" if root == Path(root.anchor) else "your home directory"
            self.call_later(self.chat.add_notice, f"⚠ gemini-tui was started in {where} ({root}): the tools can "
                            "read and change everything under it. Start it in a project folder instead.", "warning")

    def apply_theme(self, settings: Any) -> None:
        """gemini-tui's own theme (`geminiTui.theme`), else Gemini CLI's `ui.theme` mapped to the nearest."""
        from gemini_tui.app.themes import theme_from_settings

        name, warning = theme_from_settings(settings.tui_theme, settings.ui_theme, self.app.available_themes)
        if warning:
            self.notify(warning, severity="warning")
        if name is not None:
            self.app.theme = name

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

    @work(group="history-panel")
    async def mount_history_panel(self) -> None:
        panel = history_panel()
        panel.display = False
        placeholder, self.history = self.history, panel
        await self.query_one("#body").mount(panel)
        await placeholder.remove()
        self.history_panel = panel
        for record in self.calls.records():  # calls made before the panel was there
            panel.show(record)

    @work(thread=True, group="warm-up")
    def warm_up_client(self) -> None:
        """Import google-genai off the event loop once the screen is up, so the first prompt does not freeze it."""
        import importlib

        try:
            importlib.import_module("google.genai")
        except ImportError:  # the client reports this itself when it is used
            pass

    @work(thread=True, group="warm-up")
    def warm_up_markdown(self) -> None:
        """Import the answer's renderer off the event loop, so the first answer does not stall typing (~80 ms)."""
        from gemini_tui.app.widgets.answer import warm_up

        warm_up()

    @work(group="resumed")
    async def show_resumed(self) -> None:
        await self.show_transcript(self.session.resumed)  # type: ignore[attr-defined]

    @work(group="notices")
    async def show_startup_notices(self) -> None:
        """Notices published before the app subscribed (settings problems, the offline model)."""
        for notice in self.session.notices:
            await self.chat.add_notice(notice.message, notice.level)

    @work(group="events")
    async def pump_events(self, events: AsyncGenerator[Event, None]) -> None:
        try:
            async for event in events:
                try:
                    await self.adapter.handle(event)
                except Exception as exc:  # a display bug must not stop the event stream
                    self.log.error(f"event {type(event).__name__} failed: {exc!r}")
                    self.notify(f"Display error: {exc}", severity="error")
        finally:
            await events.aclose()  # unsubscribes now, not whenever the generator is collected

    def focus_prompt(self) -> None:
        self.prompt.input.focus()

    def type_into_prompt(self, event: events.Key) -> None:
        """A key typed for the prompt reached a confirmation that was not listening yet: it goes where the
        user meant it (text, Backspace, and Enter, which sends the prompt: queued while the turn runs; other keys
        only wait)."""
        prompt = self.prompt.input
        if event.key == "backspace":
            prompt.action_delete_left()
        elif event.key == "enter":
            prompt.submit()
        elif event.is_printable and event.character:
            prompt.insert(event.character)

    # -- what the event adapter and the confirmations drive (EventView, ConfirmationView) -----------------------------
    def show_in_history(self, record: CallRecord) -> None:
        if self.history_panel is not None:
            self.history_panel.show(record)

    def allows_saving_grants(self) -> bool:
        return not self.session.settings.disable_always_allow

    def push_modal(self, modal: Screen[T], callback: Callable[[T | None], None]) -> None:
        self.app.push_screen(modal, callback=callback)

    def pop_modal(self, modal: Screen[Any]) -> None:
        if modal is self.app.screen:
            self.app.pop_screen()

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
            await self.run_slash(text)
            return
        if self.busy:
            self.queued.append(text)  # sent when the turn ends; Up takes the last one back, Ctrl+C drops it
            self._show_queued()
            return
        if text.startswith("!") and len(text) > 1:
            self.run_shell(text[1:].strip())
            return
        self.send(text)

    async def run_slash(self, line: str) -> None:
        await self.chat.start_turn(line)
        try:
            result = await run_command(self.session, line, CommandContext(self.mcp_status))
        except Exception as exc:  # a failed command is reported, never fatal
            await self.chat.add_notice(f"✗ {line.split()[0]} failed: {exc}", "error")
            return
        await self.apply(result)

    async def apply(self, result: CommandResult) -> None:
        """Shows what a slash command returned."""
        match result:
            case ShowMarkdown(text=text):
                await self.chat.add_markdown(text)
            case ShowNotice(text=text, level=level):
                await self.chat.add_notice(text, level)
            case ClearChat():
                await self.chat.clear()
                self.queue.start_turn()
                self.todos.show(None)
            case ShowConversation(notice=notice):
                await self.chat.clear()
                if self.session.resumed is not None:
                    await self.show_transcript(self.session.resumed)
                else:
                    await self.show_history()
                await self.chat.add_notice(notice)
                self.todos.show(self.session.todos)  # the list the restored history says
            case SendCommand(line=line):
                if self.busy:  # the turn worker is exclusive: starting another would cancel the running one
                    await self.chat.add_notice("A turn is running: wait for it, or press Esc to cancel it.", "error")
                else:
                    self.send_command(line)
            case ModelChanged(notice=notice):
                self.status.model_name = self.session.model_name
                self.status.is_offline = self.session.is_offline
                await self.chat.add_notice(f"Model switched to {self.session.model_name} for the next request.")
                if notice:
                    await self.chat.add_notice(notice, "warning")
            case ChooseTheme(name=name):
                await self.choose_theme(name)
            case Interactive(flow=flow):
                from gemini_tui.app.history_commands import in_worker

                in_worker(self, lambda: flow(self))
            case OpenScreen(name="help"):
                self.app.action_help()  # type: ignore[attr-defined]
            case CopyText(text=text, what=what):
                await self.copy_text(text, what)
            case Quit():
                self.app.exit()
            case Several(results=results):
                for each in results:
                    await self.apply(each)

    async def copy_text(self, text: str, what: str) -> None:
        """Through OSC 52; a notice says what was copied, or why the terminal will not take it."""
        from gemini_tui.app.clipboard import clipboard_problem

        problem = None if self.app.is_web else clipboard_problem()  # a page: the browser's clipboard takes it
        self.app.copy_to_clipboard(text)
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        if problem:
            await self.chat.add_notice(f"✗ Could not copy {what}: {problem}.", "warning")
        else:
            await self.chat.add_notice(f"Copied {what} ({lines} line(s), {len(text.encode())} bytes) to the "
                                       "clipboard.")

    @work(group="turn", exclusive=True)
    async def send(self, text: str) -> None:
        self.set_busy(True)
        try:
            await self.chat.start_turn(text)
            await self.session.send(text)  # `@path` mentions are read by the session
        finally:
            self.set_busy(False)

    @work(group="turn", exclusive=True)
    async def send_command(self, line: str) -> None:
        """A custom command (`/git:msg fix typo`): the session expands it (running its `!{...}` through the
        scheduler, asked like any command) and sends it; the turn was started by `run_slash`."""
        self.set_busy(True)
        try:
            await self.session.send_command(line)
        finally:
            self.set_busy(False)

    @work(group="turn", exclusive=True)
    async def run_shell(self, command: str) -> None:
        """`!command`: the session runs it through its scheduler (asked like any call) and keeps its output."""
        self.set_busy(True)
        self.queue.start_turn()  # a `!command` is a turn of its own: no calls of the turn before, closed after
        try:
            await self.chat.start_turn(f"!{command}")
            outcome = await self.session.run_shell(command)
            if not outcome.ran:
                await self.chat.add_notice(outcome.text, "error")
            await self.chat.close_streams()
        finally:
            self.queue.end_turn()
            self.set_busy(False)

    def set_busy(self, busy: bool) -> None:
        if busy and not self.busy:
            self._busy_since = time.monotonic()
        elif not busy and self.busy and time.monotonic() - self._busy_since >= ANSWER_NOTIFY_AFTER:
            self.attention("answer")  # a long turn ended: the answer waits for the user
        self.busy = busy
        self._cancelling = self._cancelling and busy
        self.status.busy = busy
        self.refresh_bindings()
        if not busy and self.queued:
            text = self.queued.pop(0)
            self._show_queued()
            self.post_message(PromptInput.Submitted(text))

    # -- telling the user something waits ----------------------------------------------------------------------------
    def attention(self, reason: str | None) -> None:
        """`approval`: a confirmation waits (window title says so until it is answered, bell + OSC 9);
        `answer`: a long turn ended (bell + OSC 9); None: nothing waits any more (title back)."""
        notify_on = self.session.settings.ui_notifications if self.ready else True
        app: Any = self.app
        if reason == "approval":
            self._waiting_title = True
            app.signal_terminal(title="✋ gemini-tui: action required",
                                notify="gemini-tui: a tool call waits for your approval" if notify_on else None)
        elif reason == "answer":
            if notify_on:
                app.signal_terminal(notify="gemini-tui: the answer is ready")
        elif self._waiting_title:
            self._waiting_title = False
            app.signal_terminal(title="gemini-tui")

    # -- prompts queued while a turn runs ------------------------------------------------------------------------------
    def _show_queued(self) -> None:
        view = self.queued_view
        view.display = bool(self.queued)
        if self.queued:
            lines = [f"⏳ {short(text, 200)}" for text in self.queued]
            lines.append("   sent when the turn ends · ↑ edits the last · Ctrl+C removes it · Esc cancels the turn")
            view.update(Text("\n".join(lines)))
        self.refresh_bindings()

    def action_edit_queued(self) -> None:
        """Up in an empty prompt: the last queued prompt comes back into it, out of the queue."""
        if self.queued:
            text = self.queued.pop()
            self._show_queued()
            self.prompt.input.load_text(text)
            self.prompt.input.move_cursor(self.prompt.input.document.end)

    async def show_transcript(self, loaded: Any) -> None:
        """A resumed session as the user saw it: prompts, answers, tool rows with their displays, notices and
        where the conversation was compressed."""
        from gemini_tui.core.ground.events import CallState, ToolCallInfo
        from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
        from gemini_tui.core.persistence.records import display_from_json

        # only the last RESUMED_TURNS_SHOWN turns are drawn (older ones are above the fold anyway; their calls still
        # go to the history panel), so resuming a long session is as fast as a short one
        prompts = [i for i, e in enumerate(loaded.transcript) if e.kind == "prompt"]
        first_drawn = prompts[-RESUMED_TURNS_SHOWN] if len(prompts) > RESUMED_TURNS_SHOWN else 0
        for index, entry in enumerate(loaded.transcript):
            data = entry.data
            if index < first_drawn and entry.kind != "call":
                continue
            match entry.kind:
                case "prompt":
                    await self.chat.start_turn(str(data.get("text", "")))
                case "answer":
                    await self.chat.add_answer(str(data.get("text", "")))
                case "call":
                    try:
                        state = CallState(data.get("state", "success"))
                    except ValueError:
                        state = CallState.error
                    info = ToolCallInfo(str(data.get("call_id", "")), str(data.get("name", "")),
                                        dict(data.get("args") or {}), state, str(data.get("description", "")),
                                        str(data.get("display_name", "")), float(data.get("started_at") or 0),
                                        data.get("ended_at"))
                    error = data.get("error")
                    try:
                        kind = ToolErrorKind(error["kind"]) if error else None
                    except (ValueError, KeyError, TypeError):
                        kind = ToolErrorKind.execution_failed
                    result = ToolResult("", display_from_json(data.get("display")),
                                        ToolError(kind, str(error.get("message", ""))) if error and kind else None)
                    duration = int(data.get("duration_ms") or 0)
                    record = self.calls.finish(info, result, duration)
                    if index >= first_drawn:
                        await self.chat.show_call(record)
                    self.show_in_history(record)
                case "notice":
                    await self.chat.add_notice(str(data.get("message", "")), str(data.get("level", "info")))
                case "compressed":
                    await self.chat.add_notice(compression_mark(data.get("before", 0), data.get("after", 0)))
        await self.chat.close_streams()
        if first_drawn:
            self.chat.note_hidden(len(prompts) - RESUMED_TURNS_SHOWN)

    async def choose_theme(self, name: str) -> None:
        """`/theme`: the themes listed, or one applied and remembered as geminiTui.theme (never as ui.theme, which
        is Gemini CLI's and takes only its names)."""
        from gemini_tui.app.themes import named_theme
        from gemini_tui.core.setup.config import TUI_SECTION, save_user_setting

        themes = sorted(self.app.available_themes)
        if not name:
            listed = ", ".join(f"**{t}**" if t == self.app.theme else f"`{t}`" for t in themes)
            await self.chat.add_markdown(f"Themes (current in bold): {listed}\n\n`/theme NAME` picks one.")
            return
        chosen = named_theme(name, self.app.available_themes)
        if chosen is None:
            await self.chat.add_notice(f"No theme {name!r}. Themes: {', '.join(themes)}.", "error")
            return
        self.app.theme = chosen
        key = f"{TUI_SECTION}.theme"
        try:
            path = save_user_setting(key, chosen, self.session.settings.home)
        except (OSError, ValueError) as exc:
            await self.chat.add_notice(f"Theme {chosen} for this session; not remembered: {exc}", "warning")
            return
        await self.chat.add_notice(f"Theme {chosen}, remembered as {key} in {path}.")

    async def show_history(self) -> None:
        """After /chat resume: the restored conversation's text, so the user sees where they are."""
        from gemini_tui.core.ground.parts import TextPart

        for content in self.session.history:
            text = "\n".join(p.text for p in content.parts if isinstance(p, TextPart))
            if not text:
                continue
            if content.role == "user":
                await self.chat.start_turn(text)
            else:
                await self.chat.add_answer(text)

    # -- keys ---------------------------------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "send_now":  # False hides it, so the bar shows what Esc does now
            return self.busy and self.session.waiting_for_servers
        if action == "cancel_turn":
            return self.busy and not self.session.waiting_for_servers
        if action == "edit_queued":
            return bool(self.queued) and self.focused is self.prompt.input and not self.prompt.input.text
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
            if self.queued:  # cancelling stops what was lined up too: it comes back to the prompt, unsent
                text = "\n".join([*self.queued, self.prompt.input.text]).strip()
                self.queued.clear()
                self._show_queued()
                self.prompt.input.load_text(text)
            self._cancelling = True
            self.session.cancel()
            self.adapter.confirmations.cancel_all()
            self.notify("Cancelling…", timeout=2)

    def interrupt(self) -> bool:
        """Ctrl+C: clear the prompt, else drop the last queued prompt, else cancel the turn. False when there was
        nothing of these (the app then arms quitting)."""
        if self.prompt.input.text:
            self.prompt.input.clear()
        elif self.queued:
            self.queued.pop()
            self._show_queued()
            self.notify("Queued prompt removed.", timeout=2)
        elif self.busy and not self._cancelling:
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
        if not self.ready:
            self._when_ready(self.action_cycle_mode)
            return
        self.set_mode(self.session.approval_mode.next())

    def action_toggle_yolo(self) -> None:
        if not self.ready:
            self._when_ready(self.action_toggle_yolo)
            return
        from gemini_tui.core.approvals.policy import ApprovalMode

        mode = ApprovalMode.default if self.session.approval_mode is ApprovalMode.yolo else ApprovalMode.yolo
        self.set_mode(mode)

    def set_mode(self, mode: Any) -> None:
        try:
            self.session.approval_mode = mode
        except PermissionError as exc:  # security.disableYoloMode
            self.notify(str(exc), severity="error", timeout=4)
            return
        self.status.approval_mode = str(mode)
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
        if focused is not None and self.history.display and self.history in focused.ancestors_with_self:
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
        self._fit_history()

    def _fit_history(self) -> None:
        # beside the chat the panel needs 40 columns and the chat as many; narrower, it takes the whole body
        self.set_class(self.history.display and self.size.width < HISTORY_BESIDE_MIN_WIDTH, "-history-full")

    def action_toggle_history(self) -> None:
        self.history.display = not self.history.display
        self._fit_history()
        if self.history.display:
            filters = self.history.query("Input")
            (filters.first() if filters else self.history).focus()
        else:
            self.focus_prompt()

    def on_history_panel_details_requested(self, event: HistoryPanel.DetailsRequested) -> None:
        """Enter on a call in the history panel: the call in full, over this screen."""
        from gemini_tui.app.screens.history_details import HistoryDetailsScreen

        self.app.push_screen(HistoryDetailsScreen(event.record))

    def action_close_history(self) -> None:
        """Esc in the panel closes it, as its key bar says; a turn keeps running (the next Esc cancels it)."""
        if self.history.display:
            self.action_toggle_history()
