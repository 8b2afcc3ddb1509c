"""The one adapter from core events to widgets: each event type maps to a few method calls on the view's parts.

It depends on the `EventView` protocol, not on a screen; each call event updates the view's `CallLog` once, and
the widgets that show calls render the record it returns."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING

from textual import log

from gemini_tui.app.confirmations import ConfirmationQueue
from gemini_tui.app.transcript import compression_mark
from gemini_tui.core.ground.display import TodoList
from gemini_tui.core.ground.events import (
    ApprovalModeChanged,
    CallFinished,
    CallStateChanged,
    ConfirmationRequested,
    ContextUsed,
    ErrorOccurred,
    Event,
    HistoryCompressed,
    LoopSuspected,
    McpServerStatusChanged,
    Notice,
    Retrying,
    TextDelta,
    ThoughtDelta,
    ToolOutputChunk,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
    WaitingForServers,
)
from gemini_tui.core.ground.foreground import FOREGROUND
from gemini_tui.core.ground.terminal_text import clean_value

SLICE_S = 0.004  # the longest run of events handled without letting a key (or a frame) in


def waiting_notice(servers: tuple[str, ...], timeout_s: float) -> str:
    """What the chat says while a prompt waits for MCP servers still connecting."""
    names = ", ".join(servers)
    which = f"MCP server {names}" if len(servers) == 1 else f"MCP servers {names}"
    their = "its" if len(servers) == 1 else "their"
    return (f"Waiting for {which} to connect (at most {timeout_s:.0f} s), so this prompt can offer {their} tools. "
            f"Esc sends it now without them.")


def shown(event: Event) -> Event:
    """The event as it may be shown: every string cleaned of terminal controls (core/terminal_text.py). A command's
    live output keeps its carriage returns (the queue's preview shows the last redraw); a confirmation keeps its
    details as they are (an accepted edit writes them), and its widgets clean what they show. The model's text and
    thoughts pass raw: the chat cleans them as streams, since a sequence may be cut between two deltas."""
    match event:
        case TextDelta() | ThoughtDelta():
            return event
        case ToolOutputChunk():
            return clean_value(event, keep_cr=True)
        case ConfirmationRequested():
            return dataclasses.replace(event, call=clean_value(event.call))
    return clean_value(event)


if TYPE_CHECKING:
    from gemini_tui.app.call_log import CallRecord
    from gemini_tui.app.view import EventView


class EventAdapter:
    """Calls down into the widgets, and asks the user through its `confirmations` queue; its own state is the
    turn's last error, so the turn's end does not repeat it."""

    def __init__(self, view: EventView) -> None:
        self.view = view
        self.confirmations = ConfirmationQueue(view)
        self._last_error: str | None = None

    async def pump(self, events: AsyncGenerator[Event, None]) -> None:
        """Handles the session's events until it ends; a display bug is said and the stream goes on. Events that
        are waiting already are handled without the loop getting a turn, so after `SLICE_S` of them it gets one:
        a burst from many agents at once does not hold a key back."""
        try:
            slice_began = time.perf_counter()
            async for event in events:
                await FOREGROUND.step()  # a key the user typed is drawn first
                try:
                    await self.handle(event)
                except Exception as exc:
                    log.error(f"event {type(event).__name__} failed: {exc!r}")
                    self.view.notify(f"Display error: {exc}", severity="error")
                if time.perf_counter() - slice_began > SLICE_S:
                    await asyncio.sleep(0)
                    slice_began = time.perf_counter()
        finally:
            await events.aclose()  # unsubscribes now, not whenever the generator is collected

    async def handle(self, event: Event) -> None:
        event = shown(event)
        view = self.view
        chat, queue, status = view.chat, view.queue, view.status
        match event:
            case TurnStarted():
                self._last_error = None
                queue.start_turn()
                status.busy = True
                view.refresh_bindings()  # a prompt that waited for MCP servers is under way: Esc cancels again
            case TextDelta(text=text):
                await chat.add_text(text)
            case ThoughtDelta(text=text):
                await chat.add_thought(text)
            case CallStateChanged(call=call):
                await self.show_call(view.calls.update(call))
            case ToolOutputChunk(call_id=call_id, chunk=chunk):
                if (record := view.calls.add_output(call_id, chunk)) is not None:
                    queue.output_changed(record)
            case CallFinished(call=call, result=result, duration_ms=duration_ms):
                await self.show_call(view.calls.finish(call, result, duration_ms))
                if isinstance(result.return_display, TodoList):
                    view.todos.show(result.return_display)
            case ConfirmationRequested():
                self.confirmations.add(event)
            case LoopSuspected():
                self.confirmations.ask_to_keep_going(event)
            case UsageUpdated(session_total=total):
                status.tokens = total
            case ContextUsed() as used:
                status.context_percent = used.percent
            case HistoryCompressed(before_tokens=before, after_tokens=after):
                await chat.add_notice(compression_mark(before, after))
            case Retrying(attempt=attempt, delay_s=delay, reason=reason, discard_partial=discard):
                if discard:
                    await chat.discard_partial()
                view.notify(f"Retrying ({attempt}) in {delay:.1f}s: {reason}", severity="warning", timeout=4)
            case ErrorOccurred(message=message):
                self._last_error = message
                await chat.add_notice(f"✗ {message}", "error")
            case Notice(message=message, level=level):
                await chat.add_notice(message, level)
            case ApprovalModeChanged(mode=mode, reason=reason):
                status.approval_mode = mode
                status.model_name = view.model_label()  # an `auto` alias may have routed to another model
                await chat.add_notice(f"Approval mode: {mode}" + (f" ({reason})" if reason else ""))
            case WaitingForServers(servers=servers, timeout_s=timeout_s):
                await chat.add_notice(waiting_notice(servers, timeout_s))
                view.refresh_bindings()  # Esc now sends the prompt: the key bar says so
            case McpServerStatusChanged(server=server, state=state):
                status.set_mcp_state(server, state.value)
                view.mcp_status[server] = event
                view.refresh_session_commands()  # its prompts and resources complete once it is connected
            case TurnFinished(reason=reason, message=message):
                await chat.close_streams()
                status.busy = False
                queue.end_turn()
                if reason.value != "completed":
                    said = not message or message == self._last_error  # the error notice above already says it
                    await chat.add_notice(f"Turn ended: {reason.value}" + ("" if said else f". {message}"),
                                          "warning" if reason.value in ("cancelled", "stopped") else "error")

    async def show_call(self, record: CallRecord) -> None:
        """Every widget that shows calls renders the same record."""
        await self.view.chat.show_call(record)
        self.view.queue.show(record)
        self.view.show_in_history(record)
