"""Several sessions in one window: each session's main screen lives in a screen mode of its own (its modals stack
over it there, so keys reach only the session in front), which one is in front, the next and the previous, and the
"waiting on you" list of every question a session or one of its subagents waits on the user for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from gemini_tui.core.workspace.worktree_place import worktree_name_of

if TYPE_CHECKING:
    from pathlib import Path

    from textual.app import App

    from gemini_tui.app.event_adapter import EventAdapter
    from gemini_tui.app.held_modals import HeldModals
    from gemini_tui.core.ground.events import ConfirmationRequested, LoopSuspected
    from gemini_tui.core.session.face import SessionFace

TITLE_CELLS = 18  # of a session's first prompt, in its tab


class SessionScreen(Protocol):
    """What of a session's main screen this needs."""

    session: SessionFace  # None until the session is built
    root: Path
    modals: HeldModals
    _css_update_count: int  # Textual's: the stylesheet's version this screen was last styled with

    @property
    def adapter(self) -> EventAdapter: ...
    @property
    def ready(self) -> bool: ...
    @property
    def busy(self) -> bool: ...
    def focus_prompt(self) -> None: ...
    def query(self, selector: Any) -> Any: ...
    def mount(self, *widgets: Any, before: Any = None) -> Any: ...


@dataclass(frozen=True)
class Waiting:
    """One question waiting on the user: its session's number, the request, and the line the list shows."""

    number: int
    screen: SessionScreen
    request: ConfirmationRequested | LoopSuspected  # a loop's keep-going question opens when its session shows
    line: str


def mode_name(number: int) -> str:
    """The screen mode of the session opened `number`th (the first is the app's first mode: its screen is the
    first one the app shows)."""
    return f"session-{number}"


FIRST_MODE = mode_name(1)


class Sessions:
    """The open sessions in the order they were opened; numbers stay with a session for as long as it is open."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.open: list[SessionScreen] = []
        self.numbers: dict[int, int] = {}  # id(screen) -> its number
        self.worktrees: dict[int, str] = {}  # id(screen) -> the name of the worktree it works in
        self._opened = 0

    def add(self, screen: SessionScreen) -> None:
        self._opened += 1
        mode = mode_name(self._opened)
        self.app.add_mode(mode, lambda: screen)  # type: ignore[arg-type,return-value]
        # A new screen's widgets are styled as they mount, with the stylesheet as it is now: marked as styled with
        # it, switching to its mode does not parse every stylesheet again and restyle the app, twice (Textual does
        # that for a screen it has not styled yet). A later change of theme still restyles it when it is shown.
        screen._css_update_count = self.app._css_update_count
        screen.modals.mode = mode
        self.numbers[id(screen)] = self._opened
        if (worktree := worktree_name_of(screen.root)) is not None:
            self.worktrees[id(screen)] = worktree
        self.open.append(screen)

    def number(self, screen: SessionScreen) -> int:
        return self.numbers.get(id(screen), 0)

    @property
    def current(self) -> SessionScreen | None:
        return next((s for s in self.open if s.modals.mode == self.app.current_mode), None)

    async def show(self, screen: SessionScreen) -> None:
        """`screen`'s session in front: its own modals over it (the ones held while it was hidden open now)."""
        assert screen.modals.mode is not None
        await self.app.switch_mode(screen.modals.mode)
        from gemini_tui.app.widgets.session_tabs import SessionTabs  # the tabs show once a second session opens

        if not screen.query(SessionTabs):
            await screen.mount(SessionTabs(), before=0)
        screen.modals.showing()
        self.refresh()

    async def step(self, by: int) -> None:
        """The next (`by` 1) or previous (-1) session, round the end."""
        if len(self.open) > 1 and (current := self.current) is not None:
            await self.show(self.open[(self.open.index(current) + by) % len(self.open)])

    async def close(self, screen: SessionScreen) -> None:
        """Closes `screen`'s session (its screen unmounts, which closes the session and its autosave); the one
        beside it comes to the front. The last one is not closed here: closing it is quitting."""
        if len(self.open) < 2 or screen not in self.open:
            return
        index = self.open.index(screen)
        if screen is self.current:
            await self.show(self.open[index + 1 if index + 1 < len(self.open) else index - 1])
        self.open.remove(screen)
        self.numbers.pop(id(screen), None)
        self.worktrees.pop(id(screen), None)
        assert screen.modals.mode is not None
        await self.app.remove_mode(screen.modals.mode)
        self.refresh()

    def waiting(self) -> list[Waiting]:
        """Every question waiting on the user, session by session, each session's in the order it asks them."""
        found: list[Waiting] = []
        for screen in self.open:
            queue = screen.adapter.confirmations
            requests: list[ConfirmationRequested | LoopSuspected] = [*([queue.showing] if queue.showing else []),
                                                                      *queue.pending, *queue.loops]
            for request in requests:
                if not request.future.done():
                    number = self.number(screen)
                    found.append(Waiting(number, screen, request, waiting_line(number, request)))
        return found

    def state(self, screen: SessionScreen) -> str:
        queue = screen.adapter.confirmations
        if len(queue):
            return "waiting"
        return "busy" if screen.busy else ""

    def title(self, screen: SessionScreen) -> str:
        """Its tab's words: the worktree it works in, if any, and its first prompt."""
        worktree = self.worktrees.get(id(screen))
        return f"{worktree} · {title(screen)}" if worktree else title(screen)

    def refresh(self) -> None:
        """The strip of the session in front says what every session is doing now."""
        current = self.current
        if current is None or (len(self.open) < 2 and not current.query("SessionTabs")):
            return  # one session and no strip: nothing to say (the tabs' module loads with a second session)
        from gemini_tui.app.widgets.session_tabs import SessionTabs, Tab

        tabs = [Tab(self.number(s), self.title(s), self.state(s), s is current) for s in self.open]
        for strip in current.query(SessionTabs):
            strip.show(tabs)


def title(screen: SessionScreen) -> str:
    """A session's tab: its first prompt, shortened."""
    if not screen.ready:
        return "starting…"
    marks = screen.session.prompt_marks
    first = marks[0].text.strip().splitlines()[0] if marks and marks[0].text.strip() else "new"
    return first if len(first) <= TITLE_CELLS else first[:TITLE_CELLS - 1] + "…"


def waiting_line(number: int, request: ConfirmationRequested | LoopSuspected) -> str:
    """`2 · agent codebase_investigator · Shell: rm -rf build`"""
    from gemini_tui.core.ground.confirmation import ExecConfirmation, InfoConfirmation  # not before one is asked
    from gemini_tui.core.ground.events import LoopSuspected

    if isinstance(request, LoopSuspected):
        return f"{number} · session · {' '.join(request.message.split())} Stop or keep going?"
    who = f"agent {request.call.agent}" if request.call.agent else "session"
    details = request.details
    if isinstance(details, ExecConfirmation):
        what = f"run: {details.command}"
    elif isinstance(details, InfoConfirmation) and details.questions:
        what = f"asks: {details.questions[0].question}"
    else:
        what = details.title
    return f"{number} · {who} · {' '.join(what.split())}"
