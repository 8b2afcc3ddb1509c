"""`/session`: several sessions in one window: `list` them, open a `new` one (`-w NAME`: in a git worktree of its
own), show one by its number, `close` one. The window's own keys do the same (Ctrl+N, Alt+Left/Right, Ctrl+O; Ctrl+G
for what waits on you)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from gemini_tui.app.command_registry import CommandContext, CommandResult, Interactive, ShowNotice, command

if TYPE_CHECKING:
    from pathlib import Path

    from gemini_tui.app.view import CommandView
    from gemini_tui.core.session.face import SessionFace

USAGE = "/session [list | new [-w [NAME]] | <number> | close [<number>]]"
WORKTREE_FLAGS = ("-w", "--worktree")
STATES = {"busy": "working", "waiting": "waiting on you", "": "idle"}


@command("session", "Several sessions in this window: list, new (-w NAME: in its own worktree), show one by number, "
                    "close", USAGE)
async def _session(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    sub, _, rest = args.strip().partition(" ")
    rest = rest.strip()
    match sub:
        case "" | "list":
            return Interactive(listing)
        case "new":
            flag, _, name = rest.partition(" ")
            if not flag:
                return Interactive(lambda view: _open(view, None))
            if flag not in WORKTREE_FLAGS or len(name.split()) > 1:
                return ShowNotice(f"Usage: {USAGE}", "error")
            return await _in_worktree(session, name.strip())
        case "close":
            if rest and not rest.isdigit():
                return ShowNotice(f"Usage: {USAGE}", "error")
            return Interactive(lambda view: _close(view, int(rest) if rest else None))
        case number if number.isdigit() and not rest:
            return Interactive(lambda view: _show(view, int(number)))
        case _:
            return ShowNotice(f"Usage: {USAGE}", "error")


async def _open(view: CommandView, root: Path | None) -> None:
    view.app.open_session(root)


async def _in_worktree(session: SessionFace, name: str) -> CommandResult:
    """`/session new -w [NAME]`: the project's worktree NAME (made, or found again; a name made up when none is
    given), and a new session whose root it is."""
    from gemini_tui.core.workspace.worktrees import WorktreeError, open_worktree

    try:  # git runs: off the event loop
        worktree = await asyncio.to_thread(open_worktree, session.root, name or None)
    except WorktreeError as exc:
        return ShowNotice(f"No worktree: {exc}", "error")
    return Interactive(lambda view: _open(view, worktree.path))


async def listing(view: CommandView) -> None:
    sessions = view.app.sessions
    lines = ["| # | session | state | folder |", "|---:|---|---|---|"]
    for screen in sessions.open:
        shown = " (shown)" if screen is sessions.current else ""
        lines.append(f"| {sessions.number(screen)} | {sessions.title(screen).replace('|', '/')}{shown} "
                     f"| {STATES[sessions.state(screen)]} | `{screen.root}` |")
    lines += ["", "Ctrl+N opens another, Alt+Left/Right or `/session N` shows one, Ctrl+G lists what waits on you."]
    await view.chat.add_markdown("\n".join(lines))


def _numbered(view: CommandView, number: int) -> object | None:
    sessions = view.app.sessions
    return next((s for s in sessions.open if sessions.number(s) == number), None)


async def _show(view: CommandView, number: int) -> None:
    screen = _numbered(view, number)
    if screen is None:
        raise LookupError(f"No session {number} is open (/session lists them).")
    # on the app, not in this screen's worker: showing another session suspends this one
    view.app.call_later(view.app.sessions.show, screen)


async def _close(view: CommandView, number: int | None) -> None:
    screen = view if number is None else _numbered(view, number)
    if screen is None:
        raise LookupError(f"No session {number} is open (/session lists them).")
    view.app.call_later(view.app.close_session, screen)  # not in a worker of the screen it may remove
