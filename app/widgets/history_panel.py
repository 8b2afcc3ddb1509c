"""The history side panel: every tool call of the session, newest first, filtered by typing, with details.
`agent:NAME` in the filter (Ctrl+R steps through them) keeps one agent's calls; `agent:main` the session's own.

One OptionList row per call (line-based, so thousands of calls stay fast); a filter re-renders lines, not
widgets. The App feeds it `show(record)` on each state change of a call (`app.call_log`)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from gemini_tui.app.call_log import CallRecord
from gemini_tui.app.held_updates import HeldUpdates
from gemini_tui.app.widgets.call_format import (
    STATE_ICONS,
    STATE_STYLES,
    STATE_WORDS,
    call_target,
    call_title,
    format_elapsed,
    invoked_agent,
    is_agent_call,
    short,
)
from gemini_tui.core.ground.events import ToolCallInfo
from gemini_tui.core.ground.tool_result import ToolResult

AGENT_KEY = "agent:"  # a filter term: `agent:main` (the session's own calls), `agent:NAME` (a subagent's)
MAIN_AGENT = "main"


def agent_tokens(call: ToolCallInfo) -> tuple[str, ...]:
    """The `agent:` terms a call matches: the agent that made it, and for an invoke_agent call also the agent it
    started (its group belongs to both views)."""
    tokens = [AGENT_KEY + (call.agent or MAIN_AGENT)]
    if is_agent_call(call):
        tokens.append(AGENT_KEY + invoked_agent(call))
    return tuple(tokens)


def with_agent(filter_text: str, agent: str | None) -> str:
    """The filter with its `agent:` term replaced by `agent` (None: no agent term)."""
    terms = [term for term in filter_text.split() if not term.lower().startswith(AGENT_KEY)]
    return " ".join([*terms, *([AGENT_KEY + agent] if agent else [])])


@dataclass(eq=False)
class HistoryEntry:
    """One row of the panel: the call's record (`app.call_log`) and the row's cached render and search text."""

    record: CallRecord
    _option: Option | None = None
    _search: str = ""

    @property
    def call(self) -> ToolCallInfo:
        return self.record.call

    @property
    def result(self) -> ToolResult | None:
        return self.record.result

    @property
    def duration_ms(self) -> int | None:
        return self.record.duration_ms

    @property
    def search_text(self) -> str:
        if not self._search:
            call = self.call
            self._search = " ".join((call.name, call.display_name, call.description, call.state.value,
                                     STATE_WORDS[call.state], *agent_tokens(call))).lower()
        return self._search

    def matches(self, terms: list[str]) -> bool:
        text = self.search_text
        return all(term in text for term in terms)

    @property
    def option(self) -> Option:
        if self._option is None:
            self._option = Option(self.prompt(), id=self.call.call_id)
        return self._option

    def changed(self) -> None:
        self._search = ""
        self._option = None

    def prompt(self) -> Content:
        call = self.call
        # the tool's own time, as on its card (not the wait for the user's approval)
        seconds = self.record.tool_seconds(time.monotonic())
        duration = format_elapsed(seconds) if seconds is not None else "…"
        what = (call_target(call) if is_agent_call(call) else call.description) \
            or json.dumps(call.args, ensure_ascii=False)
        return Content.assemble(
            (f"{STATE_ICONS[call.state]} ", STATE_STYLES[call.state]),
            (short(call_title(call), 16).ljust(16), "bold"), " ",
            (f"{call.agent} › ", "$text-muted") if call.agent else "",  # a subagent's call names its agent
            short(what, 70), "  ",
            (duration, "$text-muted"),
        )


class HistoryList(OptionList):
    """An OptionList whose rows are one line each (no wrapping, see history.tcss), so its line bookkeeping
    needs no text measuring: with thousands of rows that measuring was most of the cost of an update."""

    def _update_lines(self) -> None:
        if not self.scrollable_content_region:
            return
        cache = self._line_cache
        count = len(self.options)
        if len(cache.lines) < count:
            indexes = range(len(cache.lines), count)
            cache.index_to_line.update(zip(indexes, indexes, strict=True))
            cache.heights.update(dict.fromkeys(indexes, 1))
            cache.lines.extend([(index, 0) for index in indexes])
        width = self.scrollable_content_region.width - self._get_left_gutter_width()
        virtual_size = Size(width, count)
        if virtual_size != self.virtual_size:
            self.virtual_size = virtual_size
            self._scroll_update(virtual_size)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.options)

    def prepend(self, options: list[Option]) -> None:
        """New rows at the top, keeping the highlighted row; the rows below keep their cached renders."""
        if not options:
            return
        highlighted = self.highlighted
        self._options[0:0] = options
        self._option_to_index = {option: index for index, option in enumerate(self._options)}
        for option in options:
            if option.id is not None:
                self._id_to_option[option.id] = option
        self._line_cache.clear()
        if highlighted is not None:
            self.highlighted = highlighted + len(options)
        self.refresh()


class HistoryPanel(Vertical):
    """Newest first. Type in the filter to narrow (tool, description, status); Enter asks for the details of the
    highlighted match, from the filter or the list (`DetailsRequested`: the screen that owns the panel opens them)."""

    class DetailsRequested(Message):
        """The user asked to see one call in full."""

        def __init__(self, record: CallRecord) -> None:
            super().__init__()
            self.record = record

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "focus_list", "Calls", show=False),
        Binding("ctrl+r", "next_agent", "Filter by agent"),
        # the panel closes and the prompt takes the focus back; a running turn goes on (the next Esc cancels it)
        Binding("escape", "screen.close_history", "Close history"),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.entries: dict[str, HistoryEntry] = {}
        self.filter_text = ""
        self.visible_ids: list[str] = []
        self._rebuild_pending = False
        self._new: list[str] = []
        self._changed: set[str] = set()
        self._full_rebuild = True
        self._refiltered = False  # the filter changed: the first match is highlighted, not the row before
        self.held = HeldUpdates()  # while its session is hidden, the rows are drawn once it shows

    def compose(self) -> ComposeResult:
        yield Label("Tool history", id="history-title")
        yield Input(placeholder="Filter: tool, description, status, agent:NAME (ctrl+r)", id="history-filter")
        yield HistoryList(id="history-list")
        yield Label("", id="history-count")

    def on_mount(self) -> None:
        self._rebuild()

    @property
    def option_list(self) -> HistoryList:
        return self.query_one("#history-list", HistoryList)

    # --- the feed --------------------------------------------------------------------------------------

    def show(self, record: CallRecord) -> None:
        """A call appeared or changed (state, result)."""
        entry = self.entries.get(record.call_id)
        if entry is None:
            self.entries[record.call_id] = HistoryEntry(record)
            self._new.append(record.call_id)
        else:
            entry.changed()
            self._changed.add(record.call_id)
        self._schedule()

    def clear(self) -> None:
        self.entries.clear()
        self._new.clear()
        self._changed.clear()
        self._full_rebuild = True
        self._schedule()

    def set_filter(self, text: str) -> None:
        self.filter_text = text
        field = self.query_one("#history-filter", Input)
        if field.value != text:
            field.value = text  # its Changed message lands here again, harmlessly
        self._full_rebuild = self._refiltered = True
        self._schedule()

    # --- rendering -------------------------------------------------------------------------------------

    def _schedule(self) -> None:
        # many events in one burst cost one rebuild; none while the session is hidden, one when it shows
        if not self.held.shown():
            self.held.redraw_later(self._schedule)
        elif not self._rebuild_pending and self.is_mounted:
            self._rebuild_pending = True
            self.call_later(self._rebuild)

    def _rebuild(self) -> None:
        self._rebuild_pending = False
        terms = self.filter_text.lower().split()
        new, self._new = self._new, []
        changed, self._changed = self._changed - set(new), set()
        if not self._full_rebuild and self._update_in_place(terms, new, changed):
            self._update_count(terms)
            return
        self._full_rebuild = False
        options = self.option_list
        highlighted = options.highlighted_option.id if options.highlighted_option else None
        shown = [entry for entry in reversed(self.entries.values()) if entry.matches(terms)]
        self.visible_ids = [entry.call.call_id for entry in shown]
        options.set_options(entry.option for entry in shown)
        if self._refiltered:
            self._refiltered = False
            options.highlighted = 0 if shown else None
        elif highlighted is not None and highlighted in options._id_to_option:
            options.highlighted = options.get_option_index(highlighted)
        self._update_count(terms)

    def _update_in_place(self, terms: list[str], new: list[str], changed: set[str]) -> bool:
        """New calls go on top and changed rows are redrawn; False when a change moves rows in or out of
        the filter (then the list is rebuilt)."""
        visible = set(self.visible_ids)
        if any(self.entries[cid].matches(terms) != (cid in visible) for cid in changed):
            return False
        options = self.option_list
        for cid in changed & visible:
            options.replace_option_prompt(cid, self.entries[cid].prompt())
        added = [cid for cid in reversed(new) if self.entries[cid].matches(terms)]
        options.prepend([self.entries[cid].option for cid in added])
        self.visible_ids[0:0] = added
        return True

    def _update_count(self, terms: list[str]) -> None:
        total = len(self.entries)
        shown = len(self.visible_ids)
        count = f"{shown} of {total} calls" if terms else f"{total} call{'s' if total != 1 else ''}"
        # one line as wide as the panel (styles/history.tcss): the new count needs no layout of the screen, even while
        # the panel is closed (a hidden widget's layout is still the whole screen's)
        self.query_one("#history-count", Label).update(count, layout=False)

    # --- interaction -----------------------------------------------------------------------------------

    @on(Input.Changed, "#history-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        if event.value != self.filter_text:
            self.filter_text = event.value
            self._full_rebuild = self._refiltered = True
            self._schedule()

    @on(Input.Submitted, "#history-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        """Enter in the filter opens the highlighted match (the first, unless Down moved on); the filter keeps
        the focus, to narrow again after the details close."""
        event.stop()
        if self._rebuild_pending:  # the last key typed may not have filtered the list yet
            self._rebuild()
        options = self.option_list
        if not options.option_count:
            return
        if options.highlighted is None:
            options.highlighted = 0
        option = options.get_option_at_index(options.highlighted)
        if option.id is not None and (entry := self.entries.get(option.id)) is not None:
            self.open_details(entry)

    def agents(self) -> list[str]:
        """Whose calls the panel holds: `main` (the session's own), then each subagent as it first appeared."""
        seen: dict[str, None] = {MAIN_AGENT: None}
        for entry in self.entries.values():
            if entry.call.agent:
                seen[entry.call.agent] = None
            elif is_agent_call(entry.call):
                seen[invoked_agent(entry.call)] = None
        return list(seen)

    def action_next_agent(self) -> None:
        """Ctrl+R: the filter shows the next agent's calls (main, each subagent, then everyone's again)."""
        agents = self.agents()
        current = next((term[len(AGENT_KEY):] for term in self.filter_text.lower().split()
                        if term.startswith(AGENT_KEY)), None)
        index = agents.index(current) + 1 if current in agents else 0
        self.set_filter(with_agent(self.filter_text, agents[index] if index < len(agents) else None))

    def action_focus_list(self) -> None:
        options = self.option_list
        if options.option_count:
            options.focus()
            if options.highlighted is None:
                options.highlighted = 0

    @on(OptionList.OptionSelected, "#history-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None and (entry := self.entries.get(event.option.id)) is not None:
            self.open_details(entry)

    def open_details(self, entry: HistoryEntry) -> None:
        self.post_message(self.DetailsRequested(entry.record))
