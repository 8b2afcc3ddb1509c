"""`/session`: several sessions in one window: `list` them, open a `new` one, show one by its number, `close` one.
The window's own keys do the same (Ctrl+N, Alt+Left/Right, Ctrl+O; Ctrl+G for what waits on you)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemini_tui.app.command_registry import CommandContext, CommandResult, Interactive, ShowNotice, command

if TYPE_CHECKING:
    from gemini_tui.app.view import CommandView
    from gemini_tui.core.session.face import SessionFace

USAGE = "/session [list | new | <number> | close [<number>]]"
STATES = {"busy": "working", "waiting": "waiting on you", "": "idle"}


@command("session", "Several sessions in this window: list, new, show one by number, close", USAGE)
async def _session(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    sub, _, rest = args.strip().partition(" ")
    rest = rest.strip()
    match sub:
        case "" | "list":
            return Interactive(listing)
        case "new":
            if rest:  # `-w NAME`: a worktree of its own, once worktrees can be made here
                return ShowNotice("/session new takes no options yet (a worktree of its own: not here yet).", "error")
            return Interactive(lambda view: _call(view, "open_session"))
        case "close":
            if rest and not rest.isdigit():
                return ShowNotice(f"Usage: {USAGE}", "error")
            return Interactive(lambda view: _close(view, int(rest) if rest else None))
        case number if number.isdigit() and not rest:
            return Interactive(lambda view: _show(view, int(number)))
        case _:
            return ShowNotice(f"Usage: {USAGE}", "error")


async def _call(view: CommandView, action: str) -> None:
    getattr(view.app, action)()


async def listing(view: CommandView) -> None:
    from gemini_tui.app.sessions import title

    sessions = view.app.sessions
    lines = ["| # | session | state | folder |", "|---:|---|---|---|"]
    for screen in sessions.open:
        shown = " (shown)" if screen is sessions.current else ""
        lines.append(f"| {sessions.number(screen)} | {title(screen).replace('|', '/')}{shown} "
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
