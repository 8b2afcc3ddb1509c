"""The chat pane: prompts, streamed Markdown answers, collapsible thoughts and one card per tool call."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, cast

from rich.text import Text
from textual import on
from textual.binding import BindingType
from textual.containers import Vertical, VerticalScroll
from textual.events import Click
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from gemini_tui.app.held_updates import HeldUpdates, held
from gemini_tui.app.keys_first import waits_for_typing
from gemini_tui.app.widgets.agent_group import outcome, progress
from gemini_tui.app.widgets.call_format import (
    STATE_ICONS,
    call_target,
    call_title,
    format_elapsed,
    is_agent_call,
    rejected,
    short,
    state_word,
)
from gemini_tui.app.widgets.kept_lines import KeptLines
from gemini_tui.app.widgets.redraws import Throttled, update_text
from gemini_tui.core.ground.call_state import CallState
from gemini_tui.core.ground.terminal_text import TerminalTextStream, clean_terminal_text

if TYPE_CHECKING:
    from gemini_tui.app.call_log import CallRecord
    from gemini_tui.app.widgets.answer import AnswerBlock, ThoughtBlock
    from gemini_tui.app.widgets.folded_turns import FoldedTurn, FoldedTurns, Piece
    from gemini_tui.core.ground.events import ToolCallInfo
    from gemini_tui.core.ground.tool_result import ToolResult

# Old turns leave the DOM past this many, so a long session stays light; the session keeps the history.
MAX_TURNS_SHOWN = 60
# The last turns stay widgets of their own; older ones, once above the view, are folded into one widget of their
# drawn lines (app/widgets/folded_turns.py), opened again as widgets by a click
LIVE_TURNS = 8
FOLD_TRIES = 10  # looks again, 0.3 s apart, after an output: what it pushes above the view is folded


def display_widget(display: object) -> Widget:
    """The widget for a `return_display`, from the display registry when it is there."""
    try:
        from gemini_tui.app.displays import widget_for
    except ImportError:  # the registry lands separately; plain text until then
        return Static(Text(str(display)), classes="display-fallback")
    return widget_for(display)


def release_render_caches() -> None:
    """Let widgets just removed go with their drawn lines. Textual memoises a colour pair per widget's line cache
    (an lru_cache on a method, so the cache object is in the key): the last 1,024 caches stayed alive, each with
    its lines, long after their widgets went; in a long session that was most of what the pruned turns left."""
    from textual._styles_cache import StylesCache

    memo = getattr(StylesCache, "get_inner_outer", None)
    if memo is not None and hasattr(memo, "cache_clear"):  # a pure cache: emptied, it fills again as lines are drawn
        memo.cache_clear()


PROMPT_FOLD_LINES = 12  # a prompt longer than this (a paste, mostly) is shown folded; the model gets all of it
PROMPT_FOLD_CHARS = 2000
PROMPT_SHOWN_LINES = 3


def folded_prompt(prompt: str) -> str:
    """A long prompt as the chat shows it: its first lines, then `[Pasted text +N lines]` (Gemini CLI's words)."""
    lines = prompt.split("\n")
    if len(lines) > PROMPT_FOLD_LINES:
        shown = "\n".join(lines[:PROMPT_SHOWN_LINES])
        return f"{shown}\n[Pasted text +{len(lines) - PROMPT_SHOWN_LINES} lines]"
    if len(prompt) > PROMPT_FOLD_CHARS:
        return f"{prompt[:PROMPT_FOLD_CHARS // 4]}… [Pasted text +{len(prompt) - PROMPT_FOLD_CHARS // 4} characters]"
    return prompt


def head_text(record: CallRecord) -> Text:
    """A card's first words: state, what it is, the tool's own time (the core's duration also counts the wait for
    the user, shown apart)."""
    call = record.call
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{STATE_ICONS[call.state]} ", style="bold")
    text.append(call_title(call), style="bold")
    if target := call_target(call):
        text.append(f"  {short(target, 90)}")
    text.append(f"  {state_word(call)}", style="italic")
    if (seconds := record.tool_seconds(time.monotonic())) is not None:
        text.append(f" {format_elapsed(seconds)}", style="dim")
    if (waited := record.waited_s) >= 0.5:
        text.append(f" (waited {format_elapsed(waited)} for you)", style="dim")
    return text


def tail_text(record: CallRecord, expanded: bool, text: Text) -> None:
    """Whether it opens, and why it failed (for a rejection, the user's reason)."""
    call, result = record.call, record.result
    if result is not None:
        text.append("  ▾" if expanded else "  ▸", style="dim")
    if (call.state is CallState.error or rejected(call)) and result is not None and result.error is not None:
        error = result.error.message.strip().splitlines()
        if error:
            text.append(f"\n  └ {short(error[0], 140)}", style="bold")


def call_text(record: CallRecord, expanded: bool = False) -> Text:
    """What a call's card says: its head, a running call's last line of output, its tail."""
    text = head_text(record)
    if record.call.state is CallState.executing and record.last_output:  # a command's last line, a read's count
        text.append(f"\n  │ {short(record.last_output, 140)}", style="dim")
    tail_text(record, expanded, text)
    return text


class ToolCallCard(Vertical, can_focus=True):
    """One line per call (state, description, elapsed); Enter or a click expands it to its display widget."""

    BINDINGS: ClassVar[list[BindingType]] = [("enter", "expand", "Expand/collapse")]

    def __init__(self, record: CallRecord) -> None:
        # its state's class from the start: setting it on mount would restyle the card once more
        super().__init__(classes=f"call-card -{record.call.state.value}")
        self.record = record
        self.expanded = False
        self.header = Static(classes="call-header")

    def compose(self) -> Any:
        yield self.header

    def on_mount(self) -> None:
        self.refresh_header()

    @property
    def call(self) -> ToolCallInfo:
        return self.record.call

    @property
    def result(self) -> ToolResult | None:
        return self.record.result

    def header_text(self) -> Text:
        return call_text(self.record, self.expanded)

    def _head(self) -> Text:
        return head_text(self.record)

    def _tail(self, text: Text) -> None:
        tail_text(self.record, self.expanded, text)

    def refresh_header(self) -> None:
        update_text(self.header, self.header_text())
        self._show_state()

    def _show_state(self) -> None:
        """Its state's class, and the card alone styled again when it changes: the state styles the card's own
        border (turns.tcss), so its descendants (an agent's calls, its ending) keep theirs. Textual would style
        the whole subtree again, twice (the old class off, the new on): 5-15 ms for an agent's card, in the
        middle of its session's events."""
        wanted = f"-{self.call.state.value}"
        stale = [name for state in CallState if (name := f"-{state.value}") != wanted and self.has_class(name)]
        if not stale and self.has_class(wanted):
            return
        self.remove_class(*stale, update=False)
        self.add_class(wanted, update=False)
        if self.is_mounted:
            self.app.stylesheet.update_nodes([self], animate=True)


    async def action_expand(self) -> None:
        if self.result is None:
            return
        self.expanded = not self.expanded
        if self.expanded:
            await self.mount(Vertical(display_widget(self.result.return_display), classes="call-body"))
        else:
            await self.query(".call-body").remove()
        self.refresh_header()

    @on(Click)
    async def clicked(self) -> None:
        await self.action_expand()


class GroupCalls(KeptLines, can_focus=True):
    """A subagent's own calls, folded into one widget: each drawn as its card's line (the same words, the same bar
    in its state's colour), so that a group costs a layout of the screen one widget, not two per call, and a call
    that changes needs no layout unless its number of lines does. Enter, or a click on a call, unfolds them into
    their cards (a clicked call opens)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"group-calls--{state.value}" for state in CallState}
    BINDINGS: ClassVar[list[BindingType]] = [("enter", "unfold", "Open calls")]
    BAR = "▌"  # a card's left border (`outer`), in its state's colour

    def __init__(self, card: AgentCard) -> None:
        super().__init__(classes="agent-calls group-calls")
        self.card = card
        self.rows: list[str] = []  # the call each line drawn belongs to

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._theme_changed, init=False)

    def _theme_changed(self) -> None:
        self.call_after_refresh(self.redraw)  # the bars' colours are the theme's, read as the lines are drawn

    def lines(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        rows: list[str] = []
        for record in self.card.children_records:
            bar = self.get_component_rich_style(f"group-calls--{record.call.state.value}", partial=True)
            for line in call_text(record).split("\n"):
                if rows:
                    text.append("\n")
                text.append(self.BAR, style=bar)
                text.append(" ")
                text.append_text(line)
                rows.append(record.call_id)
        self.rows = rows
        return text

    def redraw(self) -> None:
        if self.is_attached:
            self.show_lines(self.lines())

    async def action_unfold(self) -> None:
        await self.card.unfold()

    @on(Click)
    async def clicked(self, event: Click) -> None:
        row = event.y - self.styles.padding.top
        await self.card.unfold(self.rows[row] if 0 <= row < len(self.rows) else None)


class AgentCard(ToolCallCard):
    """An invoke_agent call as its subagent's group: the agent and its task, its progress (its calls by state, its
    time), its own calls under it as they come (folded into one widget of their lines until the user unfolds
    them into cards), then how it ended with the first line of its result. Enter opens the result in full."""

    def __init__(self, record: CallRecord) -> None:
        super().__init__(record)
        self.add_class("agent-card")
        self.calls: Widget = GroupCalls(self)
        self.ending = Static(classes="agent-outcome")
        self.children_records: list[CallRecord] = []
        self.child_cards: list[ToolCallCard] = []  # its calls' cards, mounted once unfolded
        self.group_progress = Throttled(self, self.refresh_header)  # its header follows its calls, a few times a second
        # the chat's own pace, shared by its groups when it gives one: groups at work at once are redrawn together,
        # one layout of the screen for all of those whose lines grew
        self.on_change: Callable[[AgentCard], None] | None = None
        # once unfolded, its new calls' cards are mounted together a few times a second: each mount lays the whole
        # screen out again, and 32 agents at work add cards many times a second
        self.arriving: list[ToolCallCard] = []
        self.arrivals = Throttled(self, self.mount_arrived)

    @property
    def folded(self) -> bool:
        return isinstance(self.calls, GroupCalls)

    def compose(self) -> Any:
        yield self.header
        yield self.calls
        yield self.ending

    async def add_call(self, card: ToolCallCard) -> None:
        """`card` is its group's next call: a line of the folded calls, or (unfolded) a card mounted with the others
        that arrive within `EVERY_S`, in one mount (its updates meanwhile are in its record, which it draws when
        mounted)."""
        self.children_records.append(card.record)
        self.child_cards.append(card)
        if not self.folded:
            self.arriving.append(card)
            self.arrivals()
        self.call_changed()

    def mount_arrived(self) -> None:
        cards, self.arriving = self.arriving, []
        if cards and self.calls.is_attached:
            self.calls.mount(*cards)

    async def unfold(self, call_id: str | None = None) -> None:
        """Its calls as cards from now on (each can be opened); the call `call_id`, when given, opens and takes the
        focus, else the first card does."""
        if self.folded:
            lines, self.calls = self.calls, Vertical(*self.child_cards, classes="agent-calls")
            self.arriving = []
            if lines.parent is self:  # else the group is not composed yet: it composes the cards instead
                await self.mount(self.calls, after=lines)
                await lines.remove()
        chosen = next((card for card in self.child_cards if card.record.call_id == call_id), None)
        if chosen is not None:
            chosen.focus()
            if not chosen.expanded:
                await chosen.action_expand()
        elif self.child_cards:
            self.child_cards[0].focus()

    def call_changed(self) -> None:
        """One of its calls appeared or changed: the progress (and the folded lines) are redrawn at most every
        `EVERY_S` (32 agents at work are hundreds of call events a second)."""
        if self.on_change is not None:
            self.on_change(self)
        else:
            self.group_progress()

    def header_text(self) -> Text:
        text = self._head()
        text.append(f" · {progress(self.children_records)}", style="dim")
        self._tail(text)
        return text

    def refresh_header(self) -> None:
        super().refresh_header()
        said = outcome(self.record, 140)
        self.ending.display = bool(said)
        update_text(self.ending, Text(f"└ {said}", no_wrap=True, overflow="ellipsis"))
        if isinstance(self.calls, GroupCalls):
            self.calls.redraw()


class TurnBlock(Vertical):
    """Everything one prompt produced, in order; removed as a whole when old turns are pruned."""

    def __init__(self, *children: Widget) -> None:
        super().__init__(*children, classes="turn")


def fold_piece(widget: Widget) -> Piece | bool | None:
    """How a widget of a finished turn is built again once its turn is folded; None: it cannot be (a subagent's
    group, an opened card, a widget of another kind), so its turn stays widgets; False: not yet (still drawing)."""
    from gemini_tui.app.widgets.answer import AnswerBlock, MarkdownText, ThoughtBlock
    from gemini_tui.app.widgets.folded_turns import Piece

    if not widget.display:
        return None
    kind = type(widget)
    if kind is Static:  # a prompt, a notice
        return Piece(partial(Static, cast("Static", widget).content, classes=" ".join(sorted(widget.classes))), "text")
    if kind is ToolCallCard:
        card = cast("ToolCallCard", widget)
        if card.expanded or not card.call.state.is_final:
            return None
        return Piece(partial(ToolCallCard, card.record), "card")
    if kind is AnswerBlock or kind is MarkdownText:
        block = cast("MarkdownText", widget)
        if not block.settled:
            return False
        return Piece(partial(kind, block.text, classes=" ".join(sorted(widget.classes))),
                     "answer" if kind is AnswerBlock else "text", block.text)
    if kind is ThoughtBlock:
        thought = cast("ThoughtBlock", widget)
        if not thought.body.complete or not (thought.collapsed or thought.body.settled):
            return False
        return Piece(partial(ThoughtBlock, thought.body.text, str(thought.title), thought.collapsed), "thought")
    return None


def turn_pieces(turn: TurnBlock) -> list[Piece] | bool | None:
    """Each widget of `turn` as it can be built again (see `fold_piece`), or None / False for the whole turn."""
    from gemini_tui.app.widgets.folded_turns import Piece

    if turn.has_focus_within:
        return None
    pieces: list[Piece] = []
    for child in turn.children:
        piece = fold_piece(child)
        if not isinstance(piece, Piece):
            return piece
        pieces.append(piece)
    return pieces


class ChatPane(VerticalScroll):
    """Follows the bottom while anchored; scrolling up releases the anchor until the user returns to the end.
    Output that arrives meanwhile shows a "new output below" line at the bottom of the pane."""

    unseen: reactive[bool] = reactive(False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._below = Static("↓ new output below · End or PageDown to see it", classes="new-output")
        self.welcome = Static(classes="welcome")
        self.turns: list[TurnBlock] = []
        self.hidden_turns = 0
        self.cards: dict[str, ToolCallCard] = {}
        self._answer: AnswerBlock | None = None
        self._thought: ThoughtBlock | None = None
        # the model's text is cleaned as it streams, one stream per block: a sequence cut between two deltas is
        # held back until its end arrives, never shown in pieces
        self._answer_text = TerminalTextStream()
        self._thought_text = TerminalTextStream()
        self._pruned_note = Static(classes="pruned-note")
        self._welcome_for: tuple[str, bool, str] | None = None  # (model, offline, root) the welcome speaks of
        self.held = HeldUpdates()  # while its session is hidden, what it is to show waits here
        self._groups_changed: dict[AgentCard, None] = {}
        self._group_redraws = Throttled(self, self._redraw_groups)
        # runs of old turns, each as one widget of their lines, in the chat's order; a turn that has to stay widgets
        # (an opened card, a subagent's group) sits between two
        self.folds: list[FoldedTurns] = []
        self._fold_due = False
        # folding, unfolding and pruning each change `turns`, `folds` and the DOM across awaits: one at a time
        self._fold_lock = asyncio.Lock()
        self._fold_tries = 0  # looks again after a fold stopped at a turn still in view (a layout may be due)

    @property
    def shown_turns(self) -> int:
        """Turns in the chat: folded ones and those that are widgets (`turns`)."""
        return len(self.turns) + sum(len(fold.turns) for fold in self.folds)

    def compose(self) -> Any:
        yield self.welcome
        yield self._pruned_note
        yield self._below

    def show_welcome(self, model_name: str, offline: bool, root: str) -> None:
        """The first screen until the first prompt: what this is, the model, the keys, how to set a key."""
        if self.shown_turns:
            return
        self._welcome_for = (model_name, offline, root)
        self.fit_welcome()
        self.welcome.display = True
        # the pane follows its bottom; a first screen shorter than the welcome shows its beginning instead
        self.call_after_refresh(self.show_welcome_top)

    def fit_welcome(self) -> None:
        """The fullest welcome that fits the chat area as it is now (shorter tips, fewer lines, no box as it
        shrinks): at 80x24 the full one was taller than the chat. Again at every resize."""
        if self._welcome_for is None:
            return
        from textual.visual import visualize

        from gemini_tui.app.widgets.welcome import fit_welcome, frame_classes

        size = self.scrollable_content_region.size  # without the scrollbar's column, kept even while it is hidden
        if not size.height or not size.width:  # not laid out yet: the first resize fits it
            size = self.app.size
        rules: Any = self.welcome.styles  # what Textual measures a widget's text with (RulesMap is its protocol)
        text, frame = fit_welcome(*self._welcome_for, size.width, size.height,
                                  lambda shown, width: visualize(self.welcome, shown).get_height(rules, width))
        for css_class in frame_classes():
            self.welcome.set_class(css_class == frame.css_class, css_class)
        self.welcome.update(text)

    def on_resize(self) -> None:
        if self.welcome.display:
            self.fit_welcome()
            self.call_after_refresh(self.show_welcome_top)

    def show_welcome_top(self) -> None:
        prompted = bool(self.folds) or any(turn.query(".user-prompt") for turn in self.turns)
        if self.welcome.display and self.max_scroll_y > 0 and not prompted:
            self.scroll_to(y=min(self.welcome.virtual_region.y, self.max_scroll_y), animate=False)

    def on_mount(self) -> None:
        self._pruned_note.display = False
        self._below.display = False
        self.welcome.display = False
        self.set_interval(0.5, self._tick_running)  # running cards: their time and last output line
        self.anchor()

    # -- following the output -----------------------------------------------------------------------------------
    @property
    def scrolled_away(self) -> bool:
        """The user scrolled up: new output does not pull the view down."""
        return self._anchor_released and self.scroll_y < self.max_scroll_y

    def follow(self) -> None:
        """Back to the bottom, following new output again (sending anything does this)."""
        self.unseen = False
        self.anchor()

    def _output_added(self) -> None:
        if self.scrolled_away:
            self.unseen = True

    def watch_unseen(self, unseen: bool) -> None:
        self._below.display = unseen

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.unseen and new_value >= self.max_scroll_y:
            self.unseen = False

    def scroll_page(self, where: str) -> None:
        """PageUp/PageDown/Home/End from anywhere on the main screen (the prompt keeps the focus)."""
        match where:
            case "page_up":
                self.scroll_page_up(animate=False)
            case "page_down":
                self.scroll_page_down(animate=False)
            case "home" | "top":
                self.scroll_home(animate=False)
            case _:
                self.follow()

    def _tick_running(self) -> None:
        if self.held.holding() or waits_for_typing(self, self._tick_running):
            return
        for card in self.cards.values():
            if card.call.state is CallState.executing and card.is_mounted:
                card.refresh_header()

    @property
    def current_turn(self) -> TurnBlock | None:
        return self.turns[-1] if self.turns else None

    async def _turn(self) -> TurnBlock:
        if not self.turns:
            await self.start_turn()
        assert self.current_turn is not None
        return self.current_turn

    @held()
    async def start_turn(self, prompt: str | None = None) -> None:
        if prompt is not None:
            self.welcome.display = False  # the first prompt ends the welcome (startup notices do not)
        await self.close_streams()
        turn = TurnBlock()
        self.turns.append(turn)
        await self.mount(turn)
        if prompt is not None:
            await turn.mount(Static(Text(clean_terminal_text(folded_prompt(prompt))), classes="user-prompt"))
        await self._prune()

    async def _prune(self) -> None:
        async with self._fold_lock:
            await self._prune_now()
        self._fold_soon()

    async def _prune_now(self) -> None:
        excess = self.shown_turns - MAX_TURNS_SHOWN
        if excess <= 0:
            return
        # the oldest turns go, in the chat's order, whether folded or widgets
        live, folds = set(self.turns), set(self.folds)
        old: list[TurnBlock] = []
        emptied: list[FoldedTurns] = []
        left = excess
        for child in list(self.children):
            if left <= 0:
                break
            if child in folds:
                fold = cast("FoldedTurns", child)
                dropped = min(left, len(fold.turns))
                fold.drop_first(dropped)
                left -= dropped
                if not fold.turns:
                    emptied.append(fold)
            elif child in live:
                old.append(cast("TurnBlock", child))
                left -= 1
        gone_turns = set(old)
        self.turns = [turn for turn in self.turns if turn not in gone_turns]
        self.folds = [fold for fold in self.folds if fold not in emptied]
        gone = {id(turn) for turn in old}
        removed = {cid for cid, card in self.cards.items() if any(id(node) in gone for node in card.ancestors)}
        # a subagent's cards are in their group's, or (folded) in no DOM at all: they go with their group
        removed |= {cid for cid, card in self.cards.items() if card.call.parent_call_id in removed}
        self.cards = {cid: card for cid, card in self.cards.items() if cid not in removed}
        await self.remove_children([*emptied, *old])
        release_render_caches()
        self.note_hidden(excess - left)

    # -- old turns folded into one widget -----------------------------------------------------------------------
    def _fold_soon(self, delay: float = 0, again: bool = False) -> None:
        """Fold what can be, once the screen is laid out (the lines kept are those drawn at that layout)."""
        if not again:
            self._fold_tries = 0
        if self._fold_due:
            return
        self._fold_due = True
        if delay:
            self.set_timer(delay, self._fold_old)
        else:
            self.call_after_refresh(self._fold_old)

    def _look_again(self) -> None:
        """Fold again in a moment, a few times at most since the last output (then the next output asks)."""
        if self._fold_tries < FOLD_TRIES:
            self._fold_tries += 1
            self._fold_soon(0.3, again=True)

    async def _fold_old(self) -> None:
        """Turns before the last LIVE_TURNS, above the view, finished and not being used (an opened card, the
        focus, a selection) are folded, each into the fold just before it (a new one if a turn that stays widgets
        or nothing is there)."""
        self._fold_due = False
        if not self.is_attached or self.held.holding() or self.screen.selections or self.scrolled_away:
            return
        if self._fold_lock.locked():
            self._look_again()
            return
        async with self._fold_lock:
            await self._fold_now()

    async def _fold_now(self) -> None:
        # loaded with the first fold, not before the first frame
        from gemini_tui.app.widgets.folded_turns import FoldedTurn, FoldedTurns, LineKeeper, fold_spots

        view_top = self.region.y
        keeper = LineKeeper()
        order = list(self.children)
        place = {id(child): index for index, child in enumerate(order)}
        runs: list[tuple[FoldedTurns | None, list[tuple[TurnBlock, FoldedTurn]]]] = []
        previous: Widget | None = None  # the last turn folded
        bottom = 0
        for turn in self.turns[:max(0, len(self.turns) - LIVE_TURNS)]:
            top = turn.region
            if not top or top.bottom > view_top:
                self._look_again()  # in view at the last layout: the layout the last output asks for may push it out
                break
            pieces = turn_pieces(turn)
            if pieces is False:  # an answer still drawing: again in a moment
                self._look_again()
            if not isinstance(pieces, list):
                previous = None
                continue
            before = order[place[id(turn)] - 1] if place.get(id(turn), 0) > 0 else None
            if previous is None or before is not previous:  # a run starts: after a fold, or a new fold
                fold = before if isinstance(before, FoldedTurns) and before in self.folds else None
                runs.append((fold, []))
                bottom = fold.region.bottom if fold is not None else top.y
            lines, top = keeper.draw(turn)
            kinds = [piece.kind for piece in pieces]
            runs[-1][1].append((turn, FoldedTurn(lines, pieces, fold_spots(turn, top, kinds), max(0, top.y - bottom))))
            previous, bottom = turn, top.bottom
        if self._drawing():  # the last answer is still being drawn: it may push more turns above the view
            self._look_again()
        if not runs:
            return
        turns = {turn for _, run in runs for turn, _ in run}
        self.turns = [turn for turn in self.turns if turn not in turns]
        gone = {id(turn) for turn in turns}
        self.cards = {cid: card for cid, card in self.cards.items()
                      if not any(id(node) in gone for node in card.ancestors)}
        await self._mount_folds(runs, turns)
        release_render_caches()

    async def _mount_folds(self, runs: list[tuple[FoldedTurns | None, list[tuple[TurnBlock, FoldedTurn]]]],
                           turns: set[TurnBlock]) -> None:
        from gemini_tui.app.widgets.folded_turns import FoldedTurns

        with self.app.batch_update():
            for fold, run in runs:
                kept = [folded for _, folded in run]
                if fold is None:
                    first = run[0][0]
                    fold = FoldedTurns(first.region.width)
                    fold.styles.margin = first.styles.margin
                    kept[0].gap = 0
                    fold.add(kept)
                    self.folds.append(fold)
                    await self.mount(fold, before=first)
                else:
                    fold.add(kept)
            await self.remove_children(list(turns))
        order = list(self.children)
        self.folds.sort(key=order.index)

    def _drawing(self) -> bool:
        from gemini_tui.app.widgets.answer import MarkdownText

        turn = self.current_turn
        return turn is not None and any(block.region and not block.settled for block in turn.query(MarkdownText))

    async def _unfold_from(self, fold: FoldedTurns, index: int) -> list[TurnBlock]:
        """Folded turn `index` of `fold` and those after it in it become widgets again, built from what each kept."""
        async with self._fold_lock:
            return await self._unfold_now(fold, index)

    async def _unfold_now(self, fold: FoldedTurns, index: int) -> list[TurnBlock]:
        if fold not in self.folds:
            return []
        after = list(self.children)
        after = after[after.index(fold) + 1:]
        live = set(self.turns)
        following = next((child for child in after if child in live), None)
        at = self.turns.index(cast("TurnBlock", following)) if following is not None else len(self.turns)
        taken = fold.take_from(index)
        blocks = [TurnBlock(*(piece.build() for piece in kept.pieces)) for kept in taken]
        self.turns[at:at] = blocks
        if not fold.turns:
            self.folds.remove(fold)
        with self.app.batch_update():
            await self.mount_all(blocks, after=fold)
            if not fold.turns:
                await fold.remove()
        for block in blocks:
            for child in block.children:
                if isinstance(child, ToolCallCard):
                    self.cards[child.record.call_id] = child
        return blocks

    async def on_folded_turns_open(self, event: FoldedTurns.Open) -> None:
        """A click on a folded card opens it (its turn becomes widgets again); on a thought, it opens or closes;
        a double click on an answer copies its Markdown, as on the answer itself."""
        event.stop()
        if event.fold not in self.folds or event.turn >= len(event.fold.turns):
            return
        piece = event.fold.turns[event.turn].pieces[event.piece]
        if piece.kind == "answer":
            if event.chain >= 2:
                from gemini_tui.app.widgets.answer import AnswerBlock

                self.post_message(AnswerBlock.CopyRequested(piece.text, "the whole answer's Markdown"))
            return
        [block, *_] = await self._unfold_from(event.fold, event.turn)
        widget = block.children[event.piece]
        if isinstance(widget, ToolCallCard):
            widget.focus()
            await widget.action_expand()
        elif piece.kind == "thought":
            from textual.widgets import Collapsible

            cast("Collapsible", widget).collapsed = not cast("Collapsible", widget).collapsed

    async def on_folded_turns_entered(self, event: FoldedTurns.Entered) -> None:
        """Tab came to a fold: its first card is a widget again (with the turns after it) and takes the focus, so
        Tab goes on through old cards as it did before they were folded. (Shift+Tab is the approval-mode key here:
        the focus only ever comes to a fold from above.)"""
        event.stop()
        fold = event.fold
        first = next(((turn, piece) for turn, kept in enumerate(fold.turns) for piece, part in enumerate(kept.pieces)
                      if part.kind == "card"), None)
        if fold not in self.folds or first is None:
            return
        [block, *_] = await self._unfold_from(fold, first[0])
        block.children[first[1]].focus()

    async def on_folded_turns_stale(self, event: FoldedTurns.Stale) -> None:
        """A new width or theme: the folded turns are widgets again, drawn anew, and folded once they are."""
        event.stop()
        for fold in list(self.folds):  # all of them: each went stale, or will at once
            await self._unfold_from(fold, 0)
        self._fold_soon(0.3)

    def note_hidden(self, count: int) -> None:
        """`count` earlier turns were not drawn (a resumed long session)."""
        self.hidden_turns += count
        self._pruned_note.update(f"{self.hidden_turns} earlier turn(s) hidden; the session still holds them.")
        self._pruned_note.display = True

    @held(merges=True)
    async def add_text(self, delta: str) -> None:
        """More of the model's answer, as it came (raw): cleaned here, as it streams."""
        if self._thought is not None:
            thought, self._thought = self._thought, None
            await self._end(thought, self._thought_text)
        if self._answer is None:
            # Markdown (markdown-it, Rich's renderer, Pygments) loads on the first answer, not before the first frame
            from gemini_tui.app.widgets.answer import AnswerBlock

            self._answer = AnswerBlock()
            await (await self._turn()).mount(self._answer)
        if shown := self._answer_text.feed(delta):
            await self._answer.write(shown)
        self._output_added()

    @held(merges=True)
    async def add_thought(self, delta: str) -> None:
        """More of the model's thoughts, as they came (raw)."""
        if self._answer is not None:
            await self.close_streams()
        if self._thought is None:
            from gemini_tui.app.widgets.answer import ThoughtBlock

            self._thought = ThoughtBlock()
            await (await self._turn()).mount(self._thought)
        if shown := self._thought_text.feed(delta):
            await self._thought.write(shown)
        self._output_added()

    @held()
    async def close_streams(self) -> None:
        """End the answer and thought being streamed: the next text starts a new block."""
        answer, thought, self._answer, self._thought = self._answer, self._thought, None, None
        await self._end(thought, self._thought_text)
        await self._end(answer, self._answer_text)
        if answer is not None or thought is not None:  # turns it pushed above the view can be folded
            self._fold_soon()

    @staticmethod
    async def _end(block: AnswerBlock | ThoughtBlock | None, stream: TerminalTextStream) -> None:
        """A block's text is complete: what its stream held back (a sequence never finished) is drawn, cleaned."""
        tail = stream.flush()
        if block is None:
            return
        if tail:
            await block.write(tail)
        await block.finish()

    @held()
    async def discard_partial(self) -> None:
        """The stream broke and will be retried: drop the text shown for it."""
        answer, self._answer = self._answer, None
        self._answer_text.reset()
        if answer is not None:
            await answer.finish()
            await answer.remove()

    @held(call_id=lambda record: record.call_id)
    async def show_call(self, record: CallRecord) -> None:
        """The card of a call that appeared or changed; a new one goes at the end of the current turn, or (a
        subagent's call) at the end of its invoke_agent call's group."""
        card = self.cards.get(record.call_id)
        group = self.cards.get(record.call.parent_call_id) if record.call.parent_call_id else None
        if card is None:
            card = AgentCard(record) if is_agent_call(record.call) else ToolCallCard(record)
            if isinstance(card, AgentCard):
                card.on_change = self._group_changed
            self.cards[record.call_id] = card
            if isinstance(group, AgentCard):
                await group.add_call(card)
            else:
                await self.close_streams()
                await (await self._turn()).mount(card)
            self._output_added()
        else:
            if card.is_mounted:  # one still waiting for its group's next mount draws its record when mounted
                card.refresh_header()
            if isinstance(group, AgentCard):  # its group's progress counts it
                group.call_changed()
        # a command the user typed (`!ls`, `/memory add`) is run to see its output: its card opens on its own
        if record.result is not None and record.call.requested_by == "user" and not card.expanded:
            await card.action_expand()

    def _group_changed(self, group: AgentCard) -> None:
        self._groups_changed[group] = None
        self._group_redraws()

    def _redraw_groups(self) -> None:
        groups, self._groups_changed = list(self._groups_changed), {}
        for group in groups:
            if group.is_attached:
                group.refresh_header()

    async def _append(self, widget: Widget) -> None:
        """A finished piece of output at the end of the current turn (the blocks being streamed end first)."""
        await self.close_streams()
        await (await self._turn()).mount(widget)
        self._output_added()

    @held()
    async def add_notice(self, message: str, level: str = "info") -> None:
        await self._append(Static(Text(clean_terminal_text(message)), classes=f"notice -{level}"))
        if self.welcome.display:  # a startup notice under the welcome: the welcome's beginning stays in view
            self.call_after_refresh(self.show_welcome_top)

    @held()
    async def add_answer(self, markdown: str) -> None:
        """A whole answer of the model's (a resumed or restored conversation), drawn as a streamed one is."""
        from gemini_tui.app.widgets.answer import AnswerBlock

        await self._append(AnswerBlock(clean_terminal_text(markdown)))

    @held()
    async def add_markdown(self, markdown: str) -> None:
        """Output of a slash command: Markdown that is not part of the conversation, drawn as answers are."""
        from gemini_tui.app.widgets.answer import MarkdownText

        await self._append(MarkdownText(clean_terminal_text(markdown), classes="command-output"))

    @held(resets=True)
    async def clear(self) -> None:
        await self.close_streams()
        folds, self.folds = self.folds, []
        await self.remove_children([*folds, *self.turns])
        self.turns, self.cards, self.hidden_turns = [], {}, 0
        self._pruned_note.display = False
        self.anchor()
