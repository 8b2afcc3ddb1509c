"""A conversation drawn again in the chat: a resumed session as the user saw it, or a restored chat's text."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gemini_tui.app.call_log import CallLog, CallRecord

if TYPE_CHECKING:
    from gemini_tui.app.widgets.chat import ChatPane
    from gemini_tui.core.ground.model_api import Content
    from gemini_tui.core.persistence.records import LoadedSession, TranscriptEntry

RESUMED_TURNS_SHOWN = 12  # turns of a resumed session drawn in the chat


def compression_mark(before: object, after: object) -> str:
    """The line the chat shows where the conversation was compressed."""
    return f"── conversation compressed here: about {before} → {after} tokens ──"


def groups_first(entries: Sequence[TranscriptEntry]) -> list[tuple[int, TranscriptEntry]]:
    """The entries (with their places) in the order to draw them: a subagent's calls were saved as they ended,
    before the invoke_agent call they ran under, so each is drawn right after that call, in its group. A call
    whose invoke_agent call was never saved (the session ended mid-run) stays where it was."""
    saved = {e.data.get("call_id") for e in entries if e.kind == "call"}
    held: dict[str, list[tuple[int, TranscriptEntry]]] = {}
    for index, entry in enumerate(entries):
        parent = entry.data.get("parent_call_id") if entry.kind == "call" else None
        if parent and parent in saved:
            held.setdefault(str(parent), []).append((index, entry))
    ordered: list[tuple[int, TranscriptEntry]] = []

    def place(index: int, entry: TranscriptEntry) -> None:
        ordered.append((index, entry))
        for _, child in held.pop(str(entry.data.get("call_id")), []) if entry.kind == "call" else []:
            place(index, child)  # drawn with its group (the group's place decides whether it is drawn)

    grouped = {id(entry) for children in held.values() for _, entry in children}
    for index, entry in enumerate(entries):
        if id(entry) not in grouped:
            place(index, entry)
    return ordered


async def show_transcript(chat: ChatPane, calls: CallLog, show_in_history: Callable[[CallRecord], None],
                          loaded: LoadedSession) -> None:
    """Prompts, answers, tool rows with their displays, notices and where the conversation was compressed. Only
    the last RESUMED_TURNS_SHOWN turns are drawn (older ones are above the fold anyway; their calls still go to
    the history panel), so resuming a long session is as fast as a short one."""
    from gemini_tui.core.ground.events import CallState, ToolCallInfo
    from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
    from gemini_tui.core.persistence.records import display_from_json

    prompts = [i for i, e in enumerate(loaded.transcript) if e.kind == "prompt"]
    first_drawn = prompts[-RESUMED_TURNS_SHOWN] if len(prompts) > RESUMED_TURNS_SHOWN else 0
    for index, entry in groups_first(loaded.transcript):
        data = entry.data
        if index < first_drawn and entry.kind != "call":
            continue
        match entry.kind:
            case "prompt":
                await chat.start_turn(str(data.get("text", "")))
            case "answer":
                await chat.add_answer(str(data.get("text", "")))
            case "call":
                try:
                    state = CallState(data.get("state", "success"))
                except ValueError:
                    state = CallState.error
                info = ToolCallInfo(str(data.get("call_id", "")), str(data.get("name", "")),
                                    dict(data.get("args") or {}), state, str(data.get("description", "")),
                                    str(data.get("display_name", "")), float(data.get("started_at") or 0),
                                    data.get("ended_at"), agent=str(data.get("agent") or ""),
                                    parent_call_id=str(data.get("parent_call_id") or ""))
                error = data.get("error")
                try:
                    kind = ToolErrorKind(error["kind"]) if error else None
                except (ValueError, KeyError, TypeError):
                    kind = ToolErrorKind.execution_failed
                result = ToolResult("", display_from_json(data.get("display")),
                                    ToolError(kind, str(error.get("message", ""))) if error and kind else None)
                record = calls.finish(info, result, int(data.get("duration_ms") or 0))
                if index >= first_drawn:
                    await chat.show_call(record)
                show_in_history(record)
            case "notice":
                await chat.add_notice(str(data.get("message", "")), str(data.get("level", "info")))
            case "compressed":
                await chat.add_notice(compression_mark(data.get("before", 0), data.get("after", 0)))
    await chat.close_streams()
    if first_drawn:
        chat.note_hidden(len(prompts) - RESUMED_TURNS_SHOWN)


async def show_history(chat: ChatPane, history: Sequence[Content]) -> None:
    """After /chat resume: the restored conversation's text, so the user sees where they are."""
    from gemini_tui.core.ground.parts import TextPart

    for content in history:
        text = "\n".join(p.text for p in content.parts if isinstance(p, TextPart))
        if not text:
            continue
        if content.role == "user":
            await chat.start_turn(text)
        else:
            await chat.add_answer(text)
