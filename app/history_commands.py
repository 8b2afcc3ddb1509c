"""Slash commands on the saved session: `/resume`, `/restore`, `/undo`, `/rewind` (also Esc Esc), `/compress`.

Each opens its picker or preview in a worker (a modal is awaited there) and leaves the rest to the session."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from gemini_tui.app.command_registry import CommandContext, CommandResult, Interactive, command

if TYPE_CHECKING:
    from gemini_tui.app.view import CommandView
    from gemini_tui.core.persistence.shadow_repo import RestorePlan
    from gemini_tui.core.session.face import SessionFace


def in_worker(screen: CommandView, job: Callable[[], Awaitable[None]]) -> None:
    async def run() -> None:
        try:
            await job()
        except (LookupError, RuntimeError, ValueError, OSError) as exc:
            await screen.chat.add_notice(str(exc).strip("'\""), "error")
        except Exception as exc:  # a checkpoint error and the like: said, never fatal
            await screen.chat.add_notice(f"✗ {exc}", "error")

    screen.run_worker(run(), group="session-command", exclusive=True)


async def pick(screen: CommandView, title: str, items: list[str], *, filterable: bool = True) -> int | None:
    """The index the user picked in a list (None: they closed it)."""
    from gemini_tui.app.screens.picker import PickerScreen  # the modals load on first use, not at launch

    return await screen.app.push_screen_wait(PickerScreen(title, items, filterable=filterable))


async def confirm(screen: CommandView, text: str, question: str) -> bool:
    """Whether the user said yes to `question` about `text`."""
    from gemini_tui.app.screens.picker import ConfirmScreen

    return bool(await screen.app.push_screen_wait(ConfirmScreen(text, question)))


def when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at))


# -- /resume ------------------------------------------------------------------------------------------------------
@command("resume", "Resume a saved session of this project (picker; or /resume N|id)", "/resume [N|id]")
async def _resume(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    return Interactive(lambda screen: resume(screen, args))


async def resume(screen: CommandView, which: str) -> None:
    session = screen.session
    if not which:
        from gemini_tui.core.persistence.listing import describe

        sessions = [s for s in session.saved.list_sessions() if s.readable and s.id != session.session_id]
        if not sessions:
            await screen.chat.add_notice("No other saved session for this project.")
            return
        newest = sorted(sessions, key=lambda s: s.modified, reverse=True)
        picked = await pick(screen, "Resume a session (newest first)", [describe(s) for s in newest])
        if picked is None:
            return
        which = newest[picked].id
    loaded = session.saved.resume(which)
    await screen.chat.clear()
    await screen.show_transcript(loaded)
    await screen.chat.add_notice(f"Resumed session {loaded.id[:8]} ({len(loaded.prompts)} prompt(s)).")


# -- /restore and /undo -------------------------------------------------------------------------------------------
def describe_plan(plan: RestorePlan) -> str:
    lines = [f"Restoring checkpoint {plan.commit[:10]} changes {len(plan.changes)} file(s):"]
    words = {"added": "delete (created since)", "deleted": "bring back (deleted since)", "modified": "put back"}
    lines += [f"  {words[c.status]:<28} {c.path}" for c in plan.changes]
    if plan.changed_by_hand:
        lines += ["", "These files were changed by hand since the agent's last change; restoring loses these "
                  "changes:", "", plan.hand_diff]
    return "\n".join(lines)


@command("restore", "Restore files (and the conversation) to a checkpoint: list, or /restore N|id",
         "/restore [N|id]")
async def _restore(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    return Interactive(lambda screen: restore(screen, args))


async def restore(screen: CommandView, which: str) -> None:
    session = screen.session
    if not which:
        records = session.rewind.list()
        if not records:
            await screen.chat.add_notice("No checkpoints yet: one is taken before each edit or command.")
            return
        items = [f"{i}. {when(r.created)}  {r.tool}  {r.description[:70]}" for i, r in enumerate(records, 1)]
        picked = await pick(screen, "Restore a checkpoint", items)
        if picked is None:
            return
        which = str(picked + 1)
    record, plan = await session.rewind.plan_restore(which)
    if not plan.changes:
        await screen.chat.add_notice("The files are as they were at that checkpoint; nothing to restore.")
    question = "Restore these files and rewind the conversation to before that prompt?"
    if plan.changes and not await confirm(screen, describe_plan(plan), question):
        await screen.chat.add_notice("Nothing restored.")
        return
    outcome = await session.rewind.restore(record, plan)
    await redraw(screen)
    await screen.chat.add_notice(f"{outcome.text} The conversation is back to before that prompt.")


@command("undo", "Undo the last change to files made by a tool call")
async def _undo(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    return Interactive(lambda screen: undo(screen))


async def undo(screen: CommandView) -> None:
    session = screen.session
    record, plan = await session.rewind.plan_undo()
    if plan.changed_by_hand and not await confirm(screen, describe_plan(plan),
                                                  f"Undo {record.tool} ({record.description}) anyway?"):
        await screen.chat.add_notice("Nothing undone.")
        return
    outcome = await session.rewind.undo(record, plan)
    await screen.chat.add_notice(f"Undid {record.tool} ({record.description}). {outcome.text}")


# -- /rewind (Esc Esc) --------------------------------------------------------------------------------------------
REWIND_CHOICES = ("Files and conversation", "Conversation only", "Files only")


@command("rewind", "Go back to an earlier prompt: files and/or conversation (also Esc Esc)")
async def _rewind(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    return Interactive(lambda screen: rewind(screen))


async def rewind(screen: CommandView) -> None:
    session = screen.session
    if session.is_running:
        raise RuntimeError("A turn is running: wait for it to end (or press Esc to cancel it), then rewind.")
    marks = list(session.prompt_marks)
    if not marks:
        await screen.chat.add_notice("No prompt to rewind to yet.")
        return
    items = [f"{i}. {' '.join(m.text.split())[:100]}" for i, m in enumerate(marks, 1)]
    picked = await pick(screen, "Rewind to before which prompt?", items[::-1])
    if picked is None:
        return
    index = len(marks) - 1 - picked
    choice = await pick(screen, "Rewind what?", list(REWIND_CHOICES), filterable=False)
    if choice is None:
        return
    files, conversation = choice in (0, 2), choice in (0, 1)
    said = []
    if files:
        found = await session.rewind.plan_rewind_files(index)
        if found is None:
            said.append("No file was changed from that prompt on.")
        else:
            record, plan = found
            if plan.changes and not await confirm(screen, describe_plan(plan), "Put these files back?"):
                await screen.chat.add_notice("Nothing rewound.")
                return
            outcome = await session.rewind.restore(record, plan, conversation=False)
            said.append(outcome.text)
    if conversation:
        text = session.rewind.rewind_conversation(index)
        await redraw(screen)
        screen.prompt.input.text = text  # the prompt comes back to be edited and sent again
        said.append("The conversation is back to before that prompt (its text is in the prompt).")
    await screen.chat.add_notice(" ".join(said))


async def redraw(screen: CommandView) -> None:
    """The chat as the saved session now holds it (after a rewind or restore)."""
    session = screen.session
    loaded = session.saved.transcript()
    if loaded is None:
        return
    await screen.chat.clear()
    await screen.show_transcript(loaded)


# -- /compress ----------------------------------------------------------------------------------------------------
@command("compress", "Condense the older turns of the conversation now (frees context)")
async def _compress(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    return Interactive(lambda screen: compress(screen))


async def compress(screen: CommandView) -> None:
    session = screen.session
    if session.is_running:
        raise RuntimeError("A turn is running: compress after it ends.")
    done = await session.compress()
    if done is None:
        await screen.chat.add_notice("Nothing to compress yet: the conversation is too short to split.")
