"""Keys first: while the user types into the prompt, the screen in front holds back the redraws and layouts that
other activity asks for (the chat, the queue, the status line, the tabs), and draws them together once the typing
pauses, when another key comes, or right after a key's frame once they have waited `MAX_HOLD_S` (then holds again).

A key's frame then draws the prompt alone: with 32 agents at work a layout of the whole screen costs 25-60 ms, and
a key that came during one (or two) waited for them. Nothing is dropped: a held widget's redraw or layout is asked
for again at release, and the widget draws its state as it is then. Scrolls are not held: one asked for by the
prompt would be dropped behind another."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import events, messages

from gemini_tui.core.ground.foreground import FOREGROUND

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.timer import Timer
    from textual.widget import Widget

QUIET_S = 0.2  # typing paused this long: what was held is drawn
MAX_HOLD_S = 0.5  # held this long while the typing goes on: drawn right after the next key's frame
IN_FLIGHT_S = 0.15  # a typed key whose frame is not drawn by then (it changed nothing) no longer holds anything
# keys that edit the prompt's text (besides printable ones): what a typist presses between characters
EDITING_KEYS = frozenset({"backspace", "delete", "left", "right", "ctrl+left", "ctrl+right", "ctrl+w",
                          "ctrl+backspace", "ctrl+delete", "shift+left", "shift+right"})


def is_typing(key: events.Key) -> bool:
    return key.is_printable or key.key in EDITING_KEYS


class KeysFirst:
    """One per screen (`around` makes one from the widgets that answer the user). `typed_into(widget)` says
    whether a focused widget is the one typed into (the prompt); `exempt(widget)` whether a widget's own redraws
    are never held (the prompt and what answers the user)."""

    def __init__(self, screen: Screen[Any], typed_into: Callable[[Widget | None], bool],
                 exempt: Callable[[Widget], bool], exempt_layouts: Callable[[], int]) -> None:
        self.screen = screen
        self.typed_into = typed_into
        self.exempt = exempt
        self.exempt_layouts = exempt_layouts
        self.typed_at = float("-inf")
        self.held_since: float | None = None
        self.layouts: dict[Widget, None] = {}
        self.updates: dict[Widget, None] = {}
        self._letting: set[int] = set()  # the requests `release` made again: they go through
        self._exempt_layouts_seen = 0
        self.releases = 0  # how many times held redraws were let go (a test reads it)
        self.due = False  # held long enough: let go right after the frame that draws the next key
        self._timer: Timer | None = None
        self._flying_since: float | None = None  # a typed key arrived then; its frame is not drawn yet
        self._landing: float | None = None  # the key whose redraw reached the screen: it lands after that frame
        self._release_waits = False  # a release came while a key was in flight: it runs once the key is drawn
        self._layout_waits = False  # the screen's layout was put off while a key was in flight (`before_frame`)
        self._later: dict[Callable[[], object], None] = {}  # redraws put off while the user types (`defers`)
        self._drawing_later = False  # they ran at a release: what they ask for is drawn with it

    @classmethod
    def around(cls, screen: Screen[Any], typed_into: Callable[[], Widget],
               answering: Callable[[], tuple[Widget, ...]]) -> KeysFirst:
        """For a screen whose `typed_into()` is the prompt's input and whose `answering()` widgets (the prompt,
        its completions, the confirmations...) are never held, nor anything inside them."""
        def exempt(widget: Widget) -> bool:
            mine = answering()
            return any(node in mine for node in widget.ancestors_with_self)

        return cls(screen, lambda focused: focused is typed_into(), exempt,
                   lambda: sum(node._layout_updates for node in answering()))

    def key(self, key: events.Key, focused: Widget | None) -> None:
        """A key arrived (before any widget handles it)."""
        now = time.monotonic()
        typing = is_typing(key) and self.typed_into(focused)
        self.typed_at = now if typing else float("-inf")
        if typing:  # until its frame is drawn, a release waits and so does the work that can (the agents')
            self._flying_since = now
            FOREGROUND.hold(IN_FLIGHT_S)
        if self.held_since is None:
            return
        if not typing:  # another key (Enter, Esc, a shortcut) ends the typing: the screen shows all there is
            self.screen.call_after_refresh(self.release)
        elif now - self.held_since >= MAX_HOLD_S:
            self.due = True  # a long hold ends between two keys: right after this one's frame (`_landed`)

    def holds(self, message: messages.Layout | messages.Update) -> bool:
        """True when the screen's layout or redraw asked for by `message` waits (it is kept here)."""
        if id(message) in self._letting:
            self._letting.discard(id(message))
            return False
        widget = message.widget
        exempt = widget is self.screen or self.exempt(widget)
        flying = self._flying_since
        if exempt and self.in_flight and self._landing != flying and isinstance(message, messages.Update):
            # the key's own redraw: once the frame that draws it is out, the key has landed
            self._landing = flying
            self.screen.call_after_refresh(self._landed, flying)
            self.screen.call_next(self._frame_now)  # drawn once the screen has taken it, not at its next tick
        if self._drawing_later:
            return False
        if isinstance(message, messages.Layout):
            # a screen drops a layout request queued right behind another: when the prompt's own was dropped for
            # this one, this one goes on in its place (the whole screen is laid out, held widgets too)
            asked = self.exempt_layouts()
            missed, self._exempt_layouts_seen = asked != self._exempt_layouts_seen, asked
            if exempt or missed:
                return False
        if exempt or time.monotonic() - self.typed_at >= QUIET_S:
            return False
        if isinstance(message, messages.Layout):
            self.layouts[widget] = None
        else:
            self.updates[widget] = None
        if self.held_since is None:
            self.held_since = time.monotonic()
            self._timer = self.screen.set_timer(QUIET_S, self._check)
        return True

    def _check(self) -> None:
        self._timer = None
        if self.held_since is None:
            return
        quiet_for = time.monotonic() - self.typed_at
        if quiet_for >= QUIET_S or (self._release_waits and not self.in_flight):
            self.release()
        else:
            self._timer = self.screen.set_timer(QUIET_S - quiet_for, self._check)

    @property
    def in_flight(self) -> bool:
        """A typed key arrived and the frame that draws it is not out yet."""
        return self._flying_since is not None and time.monotonic() - self._flying_since < IN_FLIGHT_S

    def _frame_now(self) -> None:
        """The frame that draws the key, now: waiting for the screen's idle turn and then its frame timer's
        is two more turns of an event loop that 32 agents share (the frame draws the key alone: `before_frame`)."""
        screen = self.screen
        if screen.is_current and not screen.app._batch_count and screen._dirty_widgets:
            screen._on_timer_update()

    def _landed(self, flying: float | None) -> None:
        """The frame that draws the key is out: what waited for it goes on, and a release that is due runs now,
        in the pause before the next key. (Another key that came meanwhile lands after its own frame.)"""
        if flying != self._flying_since:
            return
        self._flying_since = self._landing = None
        FOREGROUND.let_go()
        if self.due or self._release_waits:
            self.release()

    def release(self) -> None:
        """Everything held is asked for again, now (in the order it was held); what arrives later is held again
        while the typing goes on, until the next release. While a typed key is in flight it waits for its frame:
        a layout started then would come before the key's frame."""
        if self.held_since is None:
            return
        if self.in_flight:
            self._release_waits = True
            if self._timer is None:  # a key that is never drawn: its flight ends, the release runs then
                self._timer = self.screen.set_timer(IN_FLIGHT_S, self._check)
            return
        self._release_waits = False
        self.held_since = None
        self.due = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self._layout_waits:  # the screen's own layout, put off by `before_frame`: its requests are still there
            self._layout_waits = False
            self.screen._layout_required = True
            self.screen.check_idle()
        asked: list[messages.Layout | messages.Update] = [
            *(messages.Layout(widget) for widget in self.layouts if widget.is_attached),
            *(messages.Update(widget) for widget in self.updates if widget.is_attached)]
        self.layouts, self.updates = {}, {}
        self._letting = {id(message) for message in asked}  # a dropped layout request leaves no id behind
        self.releases += 1
        for message in asked:
            self.screen.post_message(message)
        later, self._later = self._later, {}
        if later:
            self._drawing_later = True  # until the frame that draws them, their redraws are not held again
            for redraw in later:
                redraw()
            self.screen.call_after_refresh(self._drawn_later)

    def _drawn_later(self) -> None:
        self._drawing_later = False

    def defers(self, redraw: Callable[[], object]) -> bool:
        """True when `redraw` (a widget's periodic or throttled redraw: running times, a group's progress) is put
        off because the user types: it runs at the next release, and draws its state as it is then. Its work and
        its lines' drawing (which the key's frame paid for the widgets beside the prompt) come once, with what
        else waited."""
        if self._drawing_later or time.monotonic() - self.typed_at >= QUIET_S:
            return False
        self._later[redraw] = None
        if self.held_since is None:
            self.held_since = time.monotonic()
            self._timer = self.screen.set_timer(QUIET_S, self._check)
        return True

    @property
    def holding(self) -> bool:
        return self.held_since is not None

    def before_frame(self) -> None:
        """The screen is about to draw a frame. While a typed key is in flight, that frame draws what answers the
        user alone: a layout and the redraws of other widgets asked for before the key came (the typing had
        paused, nothing was held) wait until the key's frame is out, as held ones do."""
        if not self.in_flight:
            return
        screen = self.screen
        asked = screen._layout_widgets.values()
        layout = screen._layout_required and not any(self.exempt(widget) for widgets in asked for widget in widgets)
        others = [widget for widget in screen._dirty_widgets if widget is not screen and not self.exempt(widget)]
        if not layout and not others:
            return
        if layout:
            screen._layout_required = False
            self._layout_waits = True
        for widget in others:
            screen._dirty_widgets.discard(widget)
            self.updates[widget] = None
        self._release_waits = True
        if self.held_since is None:
            self.held_since = time.monotonic()
        if self._timer is None:  # released when the key lands, or once its flight is over
            self._timer = self.screen.set_timer(IN_FLIGHT_S, self._check)


def waits_for_typing(widget: Widget, redraw: Callable[[], object]) -> bool:
    """`KeysFirst.defers` of the screen `widget` is on, when that screen holds for keys (False on others)."""
    screen = widget.screen if widget.is_attached else None
    return isinstance(screen, HoldsForKeys) and screen.keys_first.defers(redraw)


class HoldsForKeys:
    """A screen's side of it: Textual's own handlers of the screen's layout and redraw requests, kept back while
    the user types, else Textual's run (a handler that does not prevent the default lets the next one run)."""

    keys_first: KeysFirst

    async def _on_layout(self, message: messages.Layout) -> None:
        if self.keys_first.holds(message):
            message.stop()
            message.prevent_default()

    async def _on_update(self, message: messages.Update) -> None:
        if self.keys_first.holds(message):
            message.stop()
            message.prevent_default()

    def _on_timer_update(self) -> None:
        self.keys_first.before_frame()
        super()._on_timer_update()  # type: ignore[misc]  # Screen's, after this mixin in the screen's bases
