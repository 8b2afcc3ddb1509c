"""A hidden session's chat updates: kept in order while another session is in front, applied at once when its
session shows. Widget work on a hidden screen is invisible, yet it costs the session in front its keys (one event
loop draws them all), so a hidden chat records what it is asked to show instead of showing it.

Nothing is lost and the order is kept; a call's card is drawn once, at the place it first appeared, from its record
as it is then (its final state); streamed text in a row is applied as one piece."""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from textual import log

# set while a held method runs: another held method it calls (show_call closing the streams) runs at once
_inside: ContextVar[bool] = ContextVar("inside_held_update", default=False)


class Holds(Protocol):
    """A widget whose updates are held while its session is hidden."""

    held: HeldUpdates

    def call_later(self, callback: Callable[..., Any], *args: Any) -> bool: ...


@dataclass
class Kept:
    """One update kept for later: the method (not its holding wrapper) and its arguments."""

    method: Callable[..., Awaitable[object]]
    owner: Any
    args: tuple[Any, ...]
    call_id: str | None = None  # a call's card: drawn once from the record, later updates of it are this one


class HeldUpdates:
    """`shown` says whether the session is in front (its `HeldModals` sets it); `apply` runs when it comes there."""

    def __init__(self) -> None:
        self.shown: Callable[[], bool] = lambda: True
        self.kept: deque[Kept] = deque()
        self._calls: set[str] = set()  # the calls that have a kept update
        self._redraws: dict[Callable[[], object], None] = {}  # a view whose model changed meanwhile: drawn once
        self._applying = False

    @property
    def applying(self) -> bool:
        return self._applying

    def holding(self) -> bool:
        """True while the session is hidden, and until what it kept meanwhile is applied (the order is kept)."""
        return self._applying or bool(self.kept) or not self.shown()

    def keep(self, update: Kept, *, merges: bool = False, resets: bool = False) -> None:
        if update.call_id is not None:
            if update.call_id in self._calls:
                return  # its card is drawn from the record when applied: the record has this change already
            self._calls.add(update.call_id)
        last = self.kept[-1] if self.kept else None
        if merges and last is not None and last.method is update.method:
            last.args = (last.args[0] + update.args[0], *update.args[1:])  # streamed text in a row: one piece
            return
        if resets:  # the chat is cleared: a call shown again after it is drawn again
            self._calls.clear()
        self.kept.append(update)

    def redraw_later(self, redraw: Callable[[], object]) -> None:
        """A view that keeps its own model (the queue's calls, the history's rows) draws it once, when shown."""
        self._redraws[redraw] = None

    async def apply(self) -> None:
        """Applies what was kept, in order, while the session stays in front (one that arrives meanwhile waits its
        turn behind them)."""
        if self._applying:
            return
        self._applying = True
        token = _inside.set(True)
        try:
            while self.kept and self.shown():
                update = self.kept.popleft()
                if update.call_id is not None:
                    self._calls.discard(update.call_id)
                try:
                    await update.method(update.owner, *update.args)
                except Exception as exc:  # a display bug loses that update, not the ones after it
                    log.error(f"held update {update.method.__name__} failed: {exc!r}")
            if self.shown():
                redraws, self._redraws = self._redraws, {}
                for redraw in redraws:
                    redraw()
        finally:
            _inside.reset(token)
            self._applying = False


M = TypeVar("M", bound=Callable[..., Awaitable[None]])


def held(*, merges: bool = False, resets: bool = False,
         call_id: Callable[..., str] | None = None) -> Callable[[M], M]:
    """Makes an async method of a `Holds` widget kept while its session is hidden (and applied when it shows).
    `merges`: consecutive calls join their first argument; `resets`: it clears what calls were kept;
    `call_id(*args)`: the call whose card it draws (kept once)."""

    def wrap(method: M) -> M:
        @functools.wraps(method)
        async def run(owner: Holds, *args: Any) -> None:
            updates = owner.held
            if _inside.get():
                await method(owner, *args)
                return
            if updates.holding():
                updates.keep(Kept(method, owner, args, call_id(*args) if call_id else None),
                              merges=merges, resets=resets)
                if updates.shown() and not updates.applying:  # shown, but older updates wait: they go first
                    owner.call_later(updates.apply)
                return
            token = _inside.set(True)
            try:
                await method(owner, *args)
            finally:
                _inside.reset(token)

        return run  # type: ignore[return-value]

    return wrap
