"""The Textual App and `run(...)`, the entry the CLI calls to start the full-screen app."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, work
from textual.app import App
from textual.binding import Binding, BindingType

from gemini_tui.app.attention import Attention
from gemini_tui.app.keys_first import HoldsForKeys
from gemini_tui.app.sessions import FIRST_MODE, Sessions
from gemini_tui.app.window_title import WindowTitle, printable, tmux_pane_title
from gemini_tui.core.ground.foreground import FOREGROUND
from gemini_tui.core.ground.start_marks import mark
from gemini_tui.core.ground.text_boundary import shown_text
from gemini_tui.styles import stylesheet

if TYPE_CHECKING:
    from rich.console import RenderableType
    from textual.driver import Driver
    from textual.widget import Widget

    from gemini_tui.app.early_input import EarlyInput
    from gemini_tui.app.screens.main_screen import MainScreen
    from gemini_tui.core.session.face import SessionFace



log = logging.getLogger(__name__)

EXIT_START_FAILED = 3
QUIT_WINDOW = 2.0  # seconds within which a second Ctrl+C quits (after one that had nothing else to do)
QUIT_HINT = "Press Ctrl+C again to exit."  # Gemini CLI's words
GC_THRESHOLDS = (1000, 10, 100)
# SIGTERM (`kill`) and SIGHUP (the terminal closed) end the app as quitting does: the terminal restored (alternate
# screen and mouse off), the session closed. The exit code is the shell's 128 + signal number (143, 129), so
# whoever sent it sees the app ended on their signal, not by the user's hand.
ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
KEY_HANDLED_WAIT_S = 1.0  # a held key's widget that is busy longer than this: the next key goes on anyway
TABS_REFRESH_S = 0.5  # with several sessions, how often the strip of tabs catches up with what each does
EXIT_DEADLINE_S = 5.0  # after an ending signal, the process exits by then even if leaving hangs (a closed tty)


class GeminiApp(App[int]):
    """The app around one `Session`; everything it shows comes from the session's event bus."""

    TITLE = "gemini-tui"
    # The first session's screen is the app's first screen (made in __init__, composed as the app starts): no
    # default screen drawn first and then left for it, which restyled the whole app once more on the way.
    DEFAULT_MODE: ClassVar[str] = FIRST_MODE
    CSS_PATH: ClassVar = [stylesheet(name) for name in ("app.tcss", "chat.tcss", "prompt.tcss")]
    # what the first frame does not show (the chat's turns, the confirm bar, the screens over the main one, the
    # history panel, tool displays, the diff review): read once it is drawn, in this order after the first ones
    LATER_CSS: ClassVar = ("turns.tcss", "confirm.tcss", "screens.tcss", "diff_review.tcss", "history.tcss",
                           "displays.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
        # one meaning on every screen (modals included): clear or cancel what is in front; twice quits
        Binding("ctrl+c", "interrupt", "Clear/cancel (twice quits)", priority=True),
        # several sessions in one window (app/sessions.py): on every screen, so a modal never traps the user
        Binding("ctrl+n", "new_session", "New session", show=False, priority=True),
        Binding("alt+right,ctrl+pagedown", "step_session(1)", "Next session", show=False, priority=True),
        Binding("alt+left,ctrl+pageup", "step_session(-1)", "Previous session", show=False, priority=True),
        Binding("ctrl+o", "pick_session", "Sessions", show=False, priority=True),
        Binding("ctrl+g", "waiting_list", "Waiting on you", show=False, priority=True),
    ]

    def __init__(self, session: SessionFace | Callable[[], SessionFace], root: Path | None = None, *,
                 first_prompt: str | None = None, ask_trust: bool = True, early: EarlyInput | None = None,
                 another: Callable[[Path], SessionFace] | None = None) -> None:
        """`ask_trust`: before building the session, ask whether to trust a folder whose settings need it
        (off with --trust, and when a built Session is passed). `early`: the terminal was set to raw input as the
        process started; what was typed before is read first, and the terminal's own settings come back at the end.
        `another(root)` builds a further session for the same window (`/session new`); without it there is one."""
        super().__init__()
        self.another = another
        self.sessions = Sessions(self)
        self.attention = Attention(lambda **signal: self.signal_terminal(**signal))
        if early is not None:
            self.driver_class = _reading_early_input(self.driver_class, early)
        self._source = session
        self.root = (root or Path.cwd()).resolve()
        self.first_prompt = first_prompt  # `-i TEXT`: sent once the session is ready
        self._last_interrupt = 0.0
        self.ask_trust = ask_trust
        self.last_key_at = 0.0  # when any key last arrived: confirmations wait for typing to pause
        self.ending_signal: int | None = None  # the signal that ended the app, if one did
        self.window_title: WindowTitle | None = None  # in a real terminal
        # Keys that come before the main screen is up (typed as the app starts) wait here, in order, and are handed
        # on as it opens: there is nothing to receive them before.
        self._held_keys: list[events.Key] | None = []
        from gemini_tui.app.screens.main_screen import MainScreen

        self._first = MainScreen(None if callable(session) else session, self.root)
        # a session built after the first frame: the screen's other parts are mounted once that frame is marked
        self._first.rest_after_frame = not callable(session)
        self.sessions.add(self._first)  # in a screen mode of its own, as every later session (app/sessions.py)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Compose):  # the first screen is made now: the app's own styles come first, as
            self.stylesheet.apply(self)  # its widgets' colours derive from them (they were unset, text went unseen)
        if isinstance(event, events.Key):
            self.last_key_at = event.time  # when it arrived, before any widget sees it (see app/typing_guard.py)
            front = self.screen_stack[-1] if self.screen_stack else None
            if isinstance(front, HoldsForKeys):
                front.keys_first.key(event, self.focused)  # while it types, the screen's other redraws wait
            if self._held_keys is not None and not event.is_forwarded:
                self._held_keys.append(event)
                return
        await super().on_event(event)

    async def open_keys(self) -> None:
        """The main screen is up, its prompt focused: the keys held until now go where they would have gone a
        moment later, one after the other: each is handled (typed into the prompt) before the next is handed on,
        so a Ctrl+C (the app's own key, handled at once) after a typed draft finds the draft to clear. Keys that
        arrive meanwhile queue behind these."""
        held, self._held_keys = self._held_keys or [], None
        for key in held:
            target = self.focused
            await super().on_event(key)
            if target is not None:
                await _handled(target)

    def on_mount(self) -> None:
        # whatever asyncio would print on its own (a task's error nobody retrieved, a generator closed at the
        # loop's shutdown) goes to the debug log: nothing may be written over the screen or the restored terminal
        asyncio.get_running_loop().set_exception_handler(_log_loop_error)
        mark("app mounted")
        if self.ending_signal is not None:  # it came while the app was starting
            self.end_on_signal(self.ending_signal)
        if not self.is_headless and self._driver is not None and not self.is_web:  # a page has no title stack
            self.window_title = WindowTitle(self._driver.write, lambda: tmux_pane_title(os.environ))
            self.window_title.save()
        # A Textual screen holds many objects; with the default thresholds, full collections of them ran every
        # few frames while an answer streamed (100+ ms pauses, half the CPU): full ones are 10x rarer here. Young
        # ones stay small, since each pause is one a key may wait for (20,000 made a collection of the middle
        # generation walk ~200,000 objects: 150 ms with 32 agents at work).
        gc.set_threshold(*GC_THRESHOLDS)

        source, screen = self._source, self._first
        if self.first_prompt:
            screen.queue_prompt(self.first_prompt)
        self.call_after_refresh(self._first_frame_drawn, screen, source)

    def _first_frame_drawn(self, screen: MainScreen, source: SessionFace | Callable[[], SessionFace]) -> None:
        """What the first frame does not show, in order: the first screen's key bar and hidden parts, the later
        stylesheets, then the session (a thread building it would have slowed that frame down)."""
        mark("first frame")
        gc.enable()  # off since the command line started the app (cli/main.py)
        if not screen.rest_after_frame:
            screen.mount_rest()
        self.read_later_css()
        if callable(source):  # a function that builds the session, not a session
            self.build_session(screen, source)

    def read_later_css(self) -> None:
        """The stylesheets the first frame does not need, added to the app's (a modal that names one in its own
        CSS_PATH finds it there); only they are parsed, and the widgets restyled once."""
        paths = [str(stylesheet(name)) for name in self.LATER_CSS]
        unread = [path for path in paths if not self.stylesheet.has_source(path)]
        for path in unread:
            self.stylesheet.read(path)
        if unread:
            self.stylesheet.parse()
            self.stylesheet.update(self)

    @work(thread=True, group="session")
    def build_session(self, screen: MainScreen, build: Callable[[], SessionFace], first: bool = True) -> None:
        if self.ask_trust and first:
            from gemini_tui.core.setup.config import trust_question

            try:
                question = trust_question(self.root)
            except Exception as exc:  # reading the settings twice must not stop the start; build reports it
                self.log.warning(f"trust question: {exc!r}")
                question = []
            if question:
                self.call_from_thread(self.ask_about_trust, screen, build, question)
                return
        try:
            session = build()
        except Exception as exc:  # a bad configuration ends the app with the reason, like the CLI would
            if first:
                self.call_from_thread(self.exit, None, EXIT_START_FAILED, f"gemini-tui: {exc}")
            else:  # a further session: the window and its other sessions stay
                self.call_from_thread(self.notify, f"Could not open a session: {exc}", severity="error", timeout=8)
                self.call_from_thread(self.call_later, self.sessions.close, screen)
            return
        mark("session built")
        # queued on the screen itself: attached after its own on_mount, however fast the session was built
        self.call_from_thread(screen.call_later, screen.attach, session)

    def on_unmount(self) -> None:
        FOREGROUND.let_go()  # a key's hold ends with the app (the collector is not left paused)
        if self.window_title is not None:  # before the driver stops: the title the app found, back
            self.window_title.restore()

    def exit(self, result: int | None = None, return_code: int = 0, message: RenderableType | None = None) -> None:
        """Every way of leaving comes here: what tools still run (a command, its background jobs) ends now, not
        after the screens, the session and its servers have been closed, which can take seconds on a busy machine."""
        from gemini_tui.core.processes.child_processes import end_all

        end_all()
        super().exit(result, return_code, message)

    def end_on_signal(self, signum: int) -> None:
        """SIGTERM or SIGHUP: leave as the user's quit does, with 128 + `signum` as the exit code. Should leaving
        hang (a terminal that is gone can block the writes that restore it), the process ends anyway."""
        self.ending_signal = signum
        code = 128 + signum
        deadline = threading.Timer(EXIT_DEADLINE_S, os._exit, (code,))
        deadline.daemon = True
        deadline.start()
        self.exit(return_code=code)

    def action_interrupt(self) -> None:
        """Ctrl+C: text selected with the mouse is copied; else what is in front is cleared or cancelled (the screen
        says whether there was something); only a press with nothing else to do arms quitting, and the next press
        within QUIT_WINDOW quits."""
        if self.copy_selection():
            self._last_interrupt = 0.0  # it copied: a second press is not a quit
            return
        interrupt = getattr(self.screen, "interrupt", None)
        if interrupt is not None and interrupt():
            self._last_interrupt = 0.0  # it did its job: a second press is not a quit (it may have more to clear)
            return
        if interrupt is None and len(self.screen_stack) > 1:  # a modal without its own meaning: closed, like Esc
            self.pop_screen()
            self._last_interrupt = 0.0
            return
        now = time.monotonic()
        if now - self._last_interrupt < QUIT_WINDOW:
            self.exit()
            return
        self._last_interrupt = now
        self.notify(QUIT_HINT, timeout=QUIT_WINDOW)

    def copy_selection(self) -> bool:
        """Ctrl+C with text selected (dragged over with the mouse) copies it: through the terminal (OSC 52), or in
        a browser page through the page's clipboard. True when there was something to copy."""
        try:
            selected = self.screen.get_selected_text()
        except Exception:  # a widget that cannot say what is selected: nothing to copy
            return False
        if not selected:
            return False
        self.copy_to_clipboard(selected)
        self.screen.clear_selection()
        self.notify(f"Copied {len(selected)} characters.", timeout=2)
        return True

    def ask_about_trust(self, screen: MainScreen, build: Callable[[], SessionFace], withheld: list[str]) -> None:
        """The first start in a folder whose settings need trust: ask, save the answer, then build."""
        from gemini_tui.app.screens.trust import TrustScreen
        from gemini_tui.core.setup.config import record_trust

        def answered(level: str | None) -> None:
            if level is not None:
                try:
                    record_trust(self.root, level)
                except (ValueError, OSError) as exc:
                    self.notify(f"Could not save the trust decision: {exc}", severity="error", timeout=10)
            self.ask_trust = False
            self.build_session(screen, build)

        self.push_screen(TrustScreen(self.root, withheld, on_typed=screen.prompt.input.take_key), answered)

    def signal_terminal(self, *, title: str | None = None, notify: str | None = None) -> None:
        """What a terminal shows outside the app: the window title (OSC 2), and a notification (bell and an
        OSC 9 desktop notification, which terminals without it ignore). Nothing in a headless run. In a browser
        page (`gemini-tui serve`) the page shows them: its title, and a toast here."""
        if self.is_headless or self._driver is None:
            return
        if self.is_web:
            self._signal_page(title=title, notify=notify)
            return
        if title is not None and self.window_title is not None:
            self.window_title.set(title)
        if notify is not None:
            self._driver.write(f"\x07\x1b]9;{printable(notify)}\x07")

    def _signal_page(self, *, title: str | None, notify: str | None) -> None:
        """The page's own messages (cli/web/page.html): its title, and a count in it while the tab is hidden."""
        write_meta = getattr(self._driver, "write_meta", None)
        if title is not None and write_meta is not None:
            write_meta({"type": "page_title", "title": printable(title)})
        if notify is not None:
            if write_meta is not None:
                write_meta({"type": "page_notify", "text": printable(notify)})
            if title is None:  # (a confirmation shows itself on the page: no toast over it)
                text = notify.removeprefix("gemini-tui: ")
                self.notify(text[:1].upper() + text[1:], timeout=4)

    def bell(self) -> None:
        """A page has no bell: the BEL character would only reach the page's terminal emulator."""
        if not self.is_web:
            super().bell()

    def copy_to_clipboard(self, text: str) -> None:
        """The clipboard gets the text as shown: a lone surrogate (UTF-8 cannot carry it) as U+FFFD."""
        super().copy_to_clipboard(shown_text(text))

    def action_help(self) -> None:
        from gemini_tui.app.screens.help import HelpScreen
        from gemini_tui.app.screens.main_screen import MainScreen
        from gemini_tui.app.slash_commands import COMMANDS, session_commands

        main = next((s for s in self.screen_stack if isinstance(s, MainScreen)), None)
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(session_commands(main.session) if main and main.ready else None,
                                        [(cmd.usage, cmd.help) for cmd in COMMANDS.values()]))

    # -- several sessions in one window (app/sessions.py keeps them) -------------------------------------------------
    def action_new_session(self) -> None:
        self.open_session()

    def open_session(self, root: Path | None = None) -> bool:
        """Another session in this window, in front, built on a thread (in `root`: a worktree's folder). False when
        this app was given one built session and nothing to build another with."""
        from gemini_tui.app.screens.main_screen import MainScreen

        another = self.another
        if another is None:
            self.notify("This window cannot open another session.", severity="warning", timeout=4)
            return False
        where = (root or self.root).resolve()
        screen = MainScreen(None, where)
        self.sessions.add(screen)
        self.call_later(self.sessions.show, screen)
        if len(self.sessions.open) == 2:  # the strip's states (busy, waiting) follow from now on
            self.set_interval(TABS_REFRESH_S, self.sessions.refresh)
        self.build_session(screen, lambda: another(where), first=False)
        return True

    async def close_session(self, screen: MainScreen) -> None:
        """`/session close`: the session goes (its turn cancelled, its autosave closed), after asking when it is
        working; the last one stays (quitting closes it)."""
        from gemini_tui.app.screens.picker import ConfirmScreen

        if len(self.sessions.open) < 2:
            self.notify("This is the only session: /quit leaves gemini-tui.", timeout=3)
            return

        async def close(yes: bool | None = True) -> None:
            if yes and screen in self.sessions.open:
                if screen.busy:
                    screen.action_cancel_turn()
                await self.sessions.close(screen)

        if screen.busy or len(screen.adapter.confirmations):
            number = self.sessions.number(screen)
            self.push_screen(ConfirmScreen(f"Session {number} is working: closing it cancels its turn "
                                           "and every question it waits on.", f"Close session {number}?"), close)
        else:
            await close()

    async def action_step_session(self, by: int) -> None:
        await self.sessions.step(by)

    def action_pick_session(self) -> None:
        from gemini_tui.app.screens.picker import PickerScreen

        sessions = list(self.sessions.open)
        states = {"busy": " (working)", "waiting": " (waiting on you)", "": ""}
        lines = [f"{self.sessions.number(s)} · {self.sessions.title(s)}{states[self.sessions.state(s)]}"
                 f"{'  (shown)' if s is self.sessions.current else ''}" for s in sessions]

        async def picked(index: int | None) -> None:
            if index is not None and sessions[index] in self.sessions.open:
                await self.sessions.show(sessions[index])

        if not isinstance(self.screen, PickerScreen):
            self.push_screen(PickerScreen("Sessions (Enter shows one; Ctrl+N opens another)", lines,
                                          filterable=False), picked)

    def action_waiting_list(self) -> None:
        """Every question that waits on the user, in any session or subagent; Enter goes there and asks it."""
        from gemini_tui.app.screens.picker import PickerScreen

        waiting = self.sessions.waiting()
        if not waiting:
            self.notify("Nothing waits on you.", timeout=2)
            return

        async def picked(index: int | None) -> None:
            if index is None or waiting[index].request.future.done():
                return
            chosen = waiting[index]
            if chosen.screen in self.sessions.open:
                await self.sessions.show(chosen.screen)  # a loop's question, held meanwhile, opens with it
                from gemini_tui.core.ground.events import ConfirmationRequested

                if isinstance(chosen.request, ConfirmationRequested):
                    chosen.screen.adapter.confirmations.bring_forward(chosen.request)

        if not isinstance(self.screen, PickerScreen):
            self.push_screen(PickerScreen("Waiting on you (Enter goes there)", [w.line for w in waiting],
                                          filterable=False), picked)

    def session_attention(self, screen: MainScreen, reason: str | None) -> None:
        """A session asks for attention (`approval`, `answer`) or stops asking (None). The window's title says
        "action required" while any session waits; one in the background also says so on the one in front."""
        notify_on = screen.session.settings.ui_notifications if screen.ready else True
        if reason is None and self.sessions.waiting():
            reason = ""  # another session still waits: the title stays
        if reason:
            self.attention.ask(reason, notify_on)
        elif reason is None:
            self.attention.ask(None)
        if reason == "approval" and screen is not self.sessions.current:
            number = self.sessions.number(screen)
            self.notify(f"Session {number} waits on you: Ctrl+G shows what waits.", timeout=4)
        self.sessions.refresh()


async def _handled(widget: Widget) -> None:
    """Until `widget` has handled what was sent to it so far (a callback queued behind it has run)."""
    done = asyncio.Event()
    widget.call_later(done.set)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(done.wait(), KEY_HANDLED_WAIT_S)


def _reading_early_input(base: type[Driver], early: EarlyInput) -> type[Driver]:
    """The terminal driver, reading first what was typed before the process switched the terminal to raw input
    (those keys come before any the driver reads itself), and giving back the terminal's own settings at the end
    (and around a suspension), not the raw ones it found."""
    from textual._xterm_parser import XTermParser  # the parser Textual's own driver reads keys with

    class EarlyInputDriver(base):  # type: ignore[valid-type,misc]
        def start_application_mode(self) -> None:
            parser = XTermParser()
            for message in [*parser.feed(early.typed), *parser.feed("")] if early.typed else []:
                self.process_message(message)
            early.typed = ""  # once: a resumed driver (after a suspension) does not read them again
            super().start_application_mode()
            if getattr(self, "attrs_before", None) is not None:
                self.attrs_before = early.original

    return EarlyInputDriver


def _log_loop_error(_loop: asyncio.AbstractEventLoop, context: dict[str, object]) -> None:
    error = context.get("exception")
    log.debug("asyncio: %s", context.get("message"), exc_info=error if isinstance(error, BaseException) else None)


def run(session: SessionFace | Callable[[], SessionFace], root: Path | None = None, *,
        first_prompt: str | None = None, ask_trust: bool = True, early: EarlyInput | None = None,
        another: Callable[[Path], SessionFace] | None = None) -> int:
    """Run the app until the user quits; returns the process exit code.

    Pass a function that builds the session rather than the session itself to have the first frame drawn
    before the settings, tools and model are loaded (it is called in a thread right after). `another(root)` builds
    each further session the user opens in the window."""
    app = GeminiApp(session, root, first_prompt=first_prompt, ask_trust=ask_trust, early=early, another=another)
    with _signals_end(app):
        result = app.run()
    return result if isinstance(result, int) else (app.return_code or 0)


@contextlib.contextmanager
def _signals_end(app: GeminiApp) -> Iterator[None]:
    """While the app runs, SIGTERM and SIGHUP end it through its own exit (they killed it outright, leaving the
    terminal in the alternate screen with mouse tracking on)."""
    def ending(signum: int, _frame: object) -> None:
        try:
            loop = asyncio.get_running_loop()  # the handler runs on the main thread, inside the app's loop
        except RuntimeError:  # not running yet (or any more): on_mount ends it as soon as it starts
            app.ending_signal = signum
            return
        loop.call_soon_threadsafe(app.end_on_signal, signum)

    previous = {number: signal.signal(number, ending) for number in ENDING_SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
