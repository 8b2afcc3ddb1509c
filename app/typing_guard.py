"""Typed-ahead keys never answer a confirmation: it listens only after a quiet spell since it appeared.

A confirmation can pop up while the user is typing the next prompt. Every key typed before the confirmation
has been shown for `grace` seconds with no key pressed in between belongs to the prompt: it re-arms the wait
and the text goes to the prompt, not to the confirmation."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from textual.binding import Binding

GRACE_PERIOD = 0.6  # seconds of no typing before a confirmation takes keys (each key re-arms it)


def last_key_at(app: Any) -> float:
    """When the app last saw a key anywhere (GeminiApp records it before any widget handles the key)."""
    return float(getattr(app, "last_key_at", 0.0))


class TypingGuard:
    """The wait of one confirmation. `arm()` when it is shown (or changes); `key()` for each key it receives."""

    def __init__(self, grace: float = GRACE_PERIOD) -> None:
        self.grace = grace
        self.shown_at = 0.0
        self.last_key_at = float("-inf")

    def arm(self) -> None:
        self.shown_at = time.monotonic()
        self.last_key_at = float("-inf")

    def key(self, answering: bool = True, at: float | None = None) -> bool:
        """A key reached the confirmation: True when it may act on it (`answering`: it is one of its keys, and
        nothing was typed for the grace period); otherwise it re-arms the wait and the caller passes the key
        on to the prompt. A key that is not the confirmation's ("x" of "xylophone") re-arms it too.

        `at` is when the key arrived (the event's time, read by the terminal driver): a stalled app handles
        keys typed in one burst seconds apart, and the gap that counts is the typing's, not the handling's."""
        now = time.monotonic() if at is None else at
        allowed = answering and now - max(self.shown_at, self.last_key_at) >= self.grace
        if not allowed:
            self.last_key_at = now
        return allowed

    def quiet(self, app: Any) -> bool:
        """Shown for `grace` with no key anywhere in the app since: the confirmation may take the focus."""
        latest = max(self.shown_at, self.last_key_at, last_key_at(app))
        return time.monotonic() - latest >= self.grace

    @property
    def ready_at(self) -> float:
        """The monotonic time from which keys answer, unless another key comes first."""
        return max(self.shown_at, self.last_key_at) + self.grace

    def ready(self) -> bool:
        """No key was held back recently: an action not driven by a key (a click) may answer."""
        return time.monotonic() - max(self.shown_at, self.last_key_at) >= self.grace


def bound_keys(bindings: Iterable[Any]) -> frozenset[str]:
    """The keys a widget's BINDINGS answer to ("j,down" is two keys)."""
    keys: set[str] = set()
    for binding in bindings:
        if isinstance(binding, Binding):
            keys.update(k.strip() for k in binding.key.split(","))
    return frozenset(keys)
