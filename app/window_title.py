"""The terminal's window title: the app sets it while something waits for the user, and gives it back on exit.

At start the terminal's title is pushed on its title stack (XTWINOPS `CSI 22;0 t`, xterm and most of its
descendants); at exit it is popped (`CSI 23;0 t`). Terminals without a stack (tmux among them) ignore both, so
before the pop the title the app found is written back when it is known (asked of tmux), else an empty one: never
the app's last word ("action required") left on a window the app has left."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping

PUSH = "\x1b[22;0t"
POP = "\x1b[23;0t"


def printable(text: str) -> str:
    """No control characters inside an escape sequence's text (they would end it or start another)."""
    return "".join(char for char in text if char.isprintable())[:200]


def title_sequence(title: str) -> str:
    return f"\x1b]2;{printable(title)}\x07"


def tmux_pane_title(env: Mapping[str, str]) -> str | None:
    """The title of the tmux pane the app runs in, or None outside tmux (or when tmux does not answer)."""
    pane = env.get("TMUX_PANE")
    if not env.get("TMUX") or not pane:
        return None
    try:
        found = subprocess.run(["tmux", "display-message", "-p", "-t", pane, "#{pane_title}"], capture_output=True,
                               text=True, timeout=1, env=dict(env))
    except (OSError, subprocess.SubprocessError):
        return None
    return found.stdout.removesuffix("\n") if found.returncode == 0 else None


class WindowTitle:
    """Writes through `write` (the app's driver); `save` at start, `set` as often as needed, `restore` at exit."""

    def __init__(self, write: Callable[[str], None], find_title: Callable[[], str | None]) -> None:
        self._write = write
        self._find_title = find_title
        self._saved = False
        self._changed = False
        self._found: str | None = None  # the title before the app's first one, when it could be found out

    def save(self) -> None:
        self._write(PUSH)
        self._saved = True

    def set(self, title: str) -> None:
        if not self._changed:
            self._found = self._find_title()  # asked once, just before the app first changes it
            self._changed = True
        self._write(title_sequence(title))

    def restore(self) -> None:
        """The fallback first, then the pop: a terminal with a stack puts the saved title back over the fallback;
        one without keeps the fallback."""
        if self._changed:
            self._write(title_sequence(self._found or ""))
            self._changed = False
        if self._saved:
            self._write(POP)
            self._saved = False
