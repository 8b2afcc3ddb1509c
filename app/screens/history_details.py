"""One call of the history panel in full: its arguments, what the model was sent, and its display widget."""

from __future__ import annotations

import base64
import binascii
import json
from typing import TYPE_CHECKING, ClassVar

from textual._path import CSSPathType  # the type Screen.CSS_PATH is declared with
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.highlight import highlight
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, Static

from gemini_tui.app.displays import widget_for
from gemini_tui.app.widgets.call_format import STATE_ICONS, STATE_STYLES, STATE_WORDS, call_title, format_elapsed
from gemini_tui.core.ground.parts import InlineDataPart, TextPart
from gemini_tui.styles import stylesheet

if TYPE_CHECKING:
    from gemini_tui.app.call_log import CallRecord
    from gemini_tui.core.ground.tool_result import ToolResult


class HistoryDetailsScreen(ModalScreen[None]):
    """One call in full: its arguments, what the model was sent, and its display widget."""

    CSS_PATH: ClassVar[CSSPathType | None] = [
        *(str(stylesheet(name)) for name in ("history.tcss", "displays.tcss", "diff_review.tcss")),
    ]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("q", "close", "Close", show=False),
    ]

    def __init__(self, record: CallRecord) -> None:
        super().__init__()
        self.record = record

    def compose(self) -> ComposeResult:
        call, result = self.record.call, self.record.result
        duration = format_elapsed(self.record.duration_ms / 1000) if self.record.duration_ms is not None else ""
        with VerticalScroll(id="details"):
            yield Label(Content.assemble(
                (f"{STATE_ICONS[call.state]} {STATE_WORDS[call.state]}", STATE_STYLES[call.state]), "  ",
                (call_title(call), "bold"), f"  {duration}",
            ), id="details-title")
            if call.description:
                yield Static(call.description, id="details-description")
            if call.decision:  # what the approval policy answered, and the rule that decided
                reason = f" — {call.reason}" if call.reason else ""
                yield Static(f"Approval: {call.decision} by {call.rule}{reason}", id="details-approval",
                             markup=False)
            if (decided := decision_text(self.record)) is not None:
                yield Static(decided, id="details-decision", markup=False)
            # the model's arguments; a call the user edited wrote their version (its Display), not these
            edited = " (the model's proposal: you edited it, and Display shows what was written)"
            yield Label(f"Arguments{edited if call.outcome == 'modify' else ''}", classes="details-heading")
            yield Static(highlight(json.dumps(call.args, indent=2, ensure_ascii=False), language="json"),
                         id="details-args")
            yield Label("Sent to the model", classes="details-heading")
            yield Static(llm_text(result), id="details-llm", markup=False)
            if result is not None:
                yield Label("Display", classes="details-heading")
                yield widget_for(result.return_display)
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)


def decision_text(record: CallRecord) -> str | None:
    """How the call came to run or not: the decision, who made it, and how long the user took."""
    if record.decision is None:
        return None
    line = f"Decision: {record.decision.replace('_', ' ')}, by {record.decided_by}"
    if record.was_asked:
        line += f" after {format_elapsed(record.waiting_s())}"
    return line


def llm_text(result: ToolResult | None) -> str:
    """The function response the model got, as text (inline data summarised)."""
    if result is None:
        return "(no result yet)"
    if isinstance(result.llm_content, str):
        return result.llm_content
    parts = []
    for part in result.llm_content:
        match part:
            case TextPart(text=text):
                parts.append(text)
            case InlineDataPart(mime_type=mime, data=data):
                try:
                    size = len(base64.b64decode(data, validate=False))
                except (binascii.Error, ValueError):
                    size = 0
                parts.append(f"[inline data {mime}, {size} bytes]")
    return "\n".join(parts)
