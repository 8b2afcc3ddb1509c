"""Old turns folded into one widget of their drawn lines: the chat holds few widgets for them, yet they look the
same at every scroll position, a mouse selection over them copies the same text, a click opens a card or a thought
(its turn becomes widgets again), a double click copies an answer, and a new width or theme draws them anew."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.style import Style
from textual.pilot import Pilot
from textual.widgets import Collapsible, Static

from gemini_tui.app.main import GeminiApp
from gemini_tui.app.widgets import chat as chat_module
from gemini_tui.app.widgets.answer import MarkdownText
from gemini_tui.app.widgets.chat import ChatPane, ToolCallCard, TurnBlock
from gemini_tui.app.widgets.folded_turns import FoldedTurns
from gemini_tui.core.ground.model_api import CallChunk
from tests.app.app_driver import main_screen, make_app, wait_for
from tests.fakes.scripted_model import ScriptedModel, call, text, thought

LIVE = 2  # turns kept as widgets, lowered from the app's figure so a few turns are enough to fold some
TURNS = 7
SIZE = (90, 24)

# what a turn's reply is, by shape: each is drawn by other widgets and other parts of Rich and Textual
SHAPES: dict[str, Callable[[int], list[Any]]] = {
    "markdown answer": lambda n: [text(f"## Turn {n}\n\n| name | value |\n|---|---|\n| `x{n}` | **bold** |\n\n"
                                       f"1. one\n2. *two*\n\n> quoted {n}\n\n```python\nprint({n})\n```\n", 7)],
    "tool card": lambda n: [call("glob", pattern="*.md"), text(f"Found the files for turn {n}.")],
    "thought": lambda n: [thought(f"Thinking about **{n}**"), *text(f"Answer {n}, after a thought.")],
    "long lines": lambda n: [text(("wrapping words " * 30) + f"{n}\n\n" + "x" * 200 + f"\n\n`{'y' * 120}`")],
    "wide chars": lambda n: [text(f"寬字 {n} — émoji 🎉 日本語のテキスト、" * 6
                                  + "\n\n| 表 | 🎉 |\n|---|---|\n| 一 | 二 |\n")],
}


def script(shape: Callable[[int], list[Any]], turns: int = TURNS) -> ScriptedModel:
    model = ScriptedModel(record=False)
    for n in range(turns):
        reply = shape(n)
        if reply and isinstance(reply[0], CallChunk):
            model.add(reply[0])  # a call is a reply of its own; the answer follows its result
            reply = reply[1:]
        model.add(*reply)
    return model


def mixed(n: int) -> list[Any]:
    return SHAPES[list(SHAPES)[n % len(SHAPES)]](n)


@pytest.fixture(autouse=True)
def few_live_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chat_module, "LIVE_TURNS", LIVE)


async def run_turns(pilot: Pilot[Any], turns: int = TURNS) -> ChatPane:
    screen = main_screen(pilot)
    for n in range(turns):
        prompt = f"question {n}" + (" with a prompt long enough to wrap in the chat's width" * 2 if n % 3 else "")
        screen.turns.send(prompt)
        await pilot.pause()
        await wait_for(pilot, lambda: not screen.busy)
    chat = screen.chat
    await wait_for(pilot, lambda: folded_all(chat))
    return chat


def folded_all(chat: ChatPane) -> bool:
    """Every turn that can be folded is: the live ones are the last LIVE or reach into the view."""
    if not chat.folds or chat._fold_due or chat._fold_lock.locked():
        return False
    older = chat.turns[:max(0, len(chat.turns) - LIVE)]
    return all(turn.region.bottom > chat.region.y or chat_module.turn_pieces(turn) is None for turn in older) \
        and settled(chat)


def settled(chat: ChatPane) -> bool:
    return all(block.settled or not block.display or not block.parent or not block.parent.display
               for block in chat.query(MarkdownText))


def first_difference(was: list[list[Any]], now: list[list[Any]]) -> str:
    for y, (a, b) in enumerate(zip(was, now, strict=True)):
        if a != b:
            x = next((x for x, (c, d) in enumerate(zip(a, b, strict=False)) if c != d), min(len(a), len(b)))
            text = lambda row: "".join(cell[0] if isinstance(cell, tuple) else f"{cell}," for cell in row)  # noqa: E731
            return (f"row {y} col {x}: {a[x:x + 1]} vs {b[x:x + 1]}\n{text(a)!r}\n{text(b)!r}")
    return "same"


def cells(app: GeminiApp, chat: ChatPane) -> list[list[tuple[str, Style | None]]]:
    """The chat as on screen, cell by cell: each character with its style (without Textual's marks of place)."""
    rows = []
    region = chat.region
    for strip in app.screen._compositor.render_strips()[region.y:region.bottom]:
        row: list[tuple[str, Style | None]] = []
        for segment in strip:
            style = segment.style.clear_meta_and_links() if segment.style else None
            row.extend((char, style) for char in segment.text)
        rows.append(row)
    return rows


def places(app: GeminiApp, chat: ChatPane) -> list[list[Any]]:
    """Where each character of an answer on screen is in its line of text, as a mouse selection reads it (counted
    in characters: a wide character is one, over its two cells)."""
    region = chat.region
    shown = [[char for char, _ in row for _ in range(cell_len(char))] for row in cells(app, chat)]  # by cell
    found = []
    for y in range(region.y, region.bottom):
        row = []
        for x in range(region.x, region.right):
            if shown[y - region.y][x - region.x].isspace():  # a blank cell has no place (and asking costs a render)
                row.append(None)
                continue
            widget, offset = app.screen.get_widget_and_offset_at(x, y)
            text = isinstance(widget, FoldedTurns | MarkdownText)
            row.append(offset.x if text and offset is not None else None)
        found.append(row)
    return found


async def pages(pilot: Pilot[Any], chat: ChatPane, bottom: int) -> list[list[list[Any]]]:
    """The screen at each scroll position from the top of the chat down to `bottom`, a page apart (and half)."""
    shown: list[list[list[Any]]] = []
    step = max(1, chat.scrollable_content_region.height // 2)
    for y in range(0, bottom + step, step):
        chat.scroll_to(y=y, animate=False, immediate=True)
        await pilot.pause()
        await pilot.pause()
        shown.append(cells(pilot.app, chat))
        shown.append(places(pilot.app, chat))
    return shown


def assert_same(folded: list[list[list[Any]]], unfolded: list[list[list[Any]]]) -> None:
    for page, (was, now) in enumerate(zip(folded, unfolded, strict=True)):
        if page % 2:  # the places of the answers' characters (a folded prompt's are its lines', not kept)
            was = [[a if b is not None else None for a, b in zip(row, other, strict=True)]
                   for row, other in zip(was, now, strict=True)]
        assert was == now, f"page {page // 2}: {first_difference(was, now)}"


async def unfold_all(pilot: Pilot[Any], chat: ChatPane) -> None:
    for fold in list(chat.folds):
        await chat._unfold_from(fold, 0)
    await wait_for(pilot, lambda: not chat.folds and settled(chat))
    await pilot.pause()


async def drag(pilot: Pilot[Any], start: tuple[int, int], end: tuple[int, int]) -> str | None:
    await pilot.mouse_down(offset=start)
    await pilot.hover(offset=((start[0] + end[0]) // 2, (start[1] + end[1]) // 2))
    await pilot.hover(offset=end)
    await pilot.mouse_up(offset=end)
    await pilot.pause()
    return pilot.app.screen.get_selected_text()


@pytest.mark.parametrize("shape", list(SHAPES))
async def test_old_turns_fold_into_one_widget_that_looks_and_selects_the_same(shape: str, root: Path,
                                                                            tmp_path: Path) -> None:
    (root / "README.md").write_text("# demo\n")
    app = make_app(root, tmp_path, script(SHAPES[shape]), approval_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        chat = await run_turns(pilot)
        [fold] = chat.folds
        # the DOM holds the fold and the live turns only: widgets for old turns do not grow with them
        assert len(fold.turns) + len(chat.turns) == TURNS
        assert len(chat.query(TurnBlock)) == len(chat.turns) < TURNS - 2
        assert len(chat.query(FoldedTurns)) == 1
        widgets = len(list(chat.walk_children()))
        assert widgets == 4 + sum(1 + len(list(turn.walk_children())) for turn in chat.turns)

        bottom = fold.virtual_region.bottom
        height = chat.max_scroll_y
        folded = await pages(pilot, chat, bottom)
        # a selection from the first prompt's text to the end of the last answer's line in view, over folded turns
        chat.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        top = fold.region
        rows = [top.y + fold._starts[n] + row for n, turn in enumerate(fold.turns) for first, end, piece in turn.spots
                if turn.pieces[piece].kind == "answer" for row in range(first, end)]
        start, end = (top.x + 2, top.y + 1), (top.right - 3, max(row for row in rows if row < chat.region.bottom))
        selected = await drag(pilot, start, end)
        app.screen.clear_selection()

        await unfold_all(pilot, chat)
        assert chat.max_scroll_y == height
        unfolded = await pages(pilot, chat, bottom)
        assert_same(folded, unfolded)
        chat.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        assert selected and "question 0" in selected and len(selected.splitlines()) > 3
        # the same words (a wrapped prompt copies as its drawn lines there, as one line from its widget)
        again = await drag(pilot, start, end)
        assert again is not None and again.split() == selected.split(), f"{again!r}\n{selected!r}"


async def test_a_click_opens_a_folded_card_or_thought_and_a_double_click_copies_an_answer(root: Path,
                                                                                        tmp_path: Path) -> None:
    (root / "README.md").write_text("# demo\n")
    shape = lambda n: (SHAPES["tool card"] if n % 2 == 0 else SHAPES["thought"])(n)  # noqa: E731
    app = make_app(root, tmp_path, script(shape), approval_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        chat = await run_turns(pilot)
        [fold] = chat.folds
        assert len(fold.turns) >= 3
        chat.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()

        # a double click on the first answer copies its Markdown, as on the answer itself
        first = fold.turns[0]
        answer = next(n for n, piece in enumerate(first.pieces) if piece.kind == "answer")
        row = next(spot[0] for spot in first.spots if spot[2] == answer)
        await pilot.double_click(offset=(fold.region.x + 3, fold.region.y + row))
        await wait_for(pilot, lambda: app.clipboard == "Found the files for turn 0.")
        assert chat.folds == [fold] and len(fold.turns) >= 3  # nothing unfolded

        # a click on the second turn's thought opens it: that turn (and the later folded ones) are widgets again
        kept = len(fold.turns)
        second = fold.turns[1]
        piece = next(n for n, piece in enumerate(second.pieces) if piece.kind == "thought")
        row = fold._starts[1] + next(spot[0] for spot in second.spots if spot[2] == piece)
        await pilot.click(offset=(fold.region.x + 3, fold.region.y + row))
        await wait_for(pilot, lambda: len(fold.turns) == 1)
        assert len(chat.turns) == TURNS - 1
        thought_block = chat.turns[0].children[piece]
        assert isinstance(thought_block, Collapsible) and not thought_block.collapsed
        assert kept > 1

        # a click on the first turn's card opens the card
        card_piece = next(n for n, piece in enumerate(first.pieces) if piece.kind == "card")
        row = next(spot[0] for spot in first.spots if spot[2] == card_piece)
        chat.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        await pilot.click(offset=(fold.region.x + 3, fold.region.y + row))
        await wait_for(pilot, lambda: not chat.folds)
        card = chat.turns[0].children[card_piece]
        assert isinstance(card, ToolCallCard) and card.expanded and card.has_focus
        assert chat.cards[card.record.call_id] is card


@pytest.mark.parametrize("change", ["resize", "theme"])
async def test_a_new_width_or_theme_draws_folded_turns_anew(change: str, root: Path, tmp_path: Path) -> None:
    (root / "README.md").write_text("# demo\n")
    app = make_app(root, tmp_path, script(mixed), approval_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        chat = await run_turns(pilot)
        [fold] = chat.folds
        if change == "resize":
            await pilot.resize_terminal(70, SIZE[1])
        else:
            app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await wait_for(pilot, lambda: fold not in chat.folds)  # the old lines are dropped
        await wait_for(pilot, lambda: folded_all(chat))
        [again] = chat.folds
        assert len(again.turns) + len(chat.turns) == TURNS
        bottom = again.virtual_region.bottom
        folded = await pages(pilot, chat, bottom)
        await unfold_all(pilot, chat)
        unfolded = await pages(pilot, chat, bottom)
        assert_same(folded, unfolded)


def prompts_shown(chat: ChatPane) -> list[int]:
    """The number of each turn's prompt, in the chat's order, folded or not."""
    found: list[int] = []
    for child in chat.children:
        if isinstance(child, FoldedTurns):
            texts = ["\n".join(line.text for line in turn.lines) for turn in child.turns]
        elif isinstance(child, TurnBlock):
            texts = [str(child.query_one(".user-prompt", Static).content)]
        else:
            continue
        found.extend(int(match.group(1)) for text in texts if (match := re.search(r"question (\d+)", text)))
    return found


async def test_a_turn_that_stays_widgets_splits_the_folds_and_pruning_takes_the_oldest_turns(
        monkeypatch: pytest.MonkeyPatch, root: Path, tmp_path: Path) -> None:
    (root / "README.md").write_text("# demo\n")
    monkeypatch.setattr(chat_module, "MAX_TURNS_SHOWN", 8)
    app = make_app(root, tmp_path, script(SHAPES["tool card"], 12), approval_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(pilot)
        chat = screen.chat
        for n in range(8):
            screen.turns.send(f"question {n}")
            await pilot.pause()
            await wait_for(pilot, lambda: not screen.busy)
            if n == 2:  # its card opened: that turn stays widgets, the turns around it fold
                card = chat.turns[-1].query_one(ToolCallCard)
                await card.action_expand()
        await wait_for(pilot, lambda: folded_all(chat) and len(chat.folds) == 2)
        opened = next(turn for turn in chat.turns if turn.query(ToolCallCard).first().expanded)
        order = list(chat.children)
        assert order.index(chat.folds[0]) < order.index(opened) < order.index(chat.folds[1])
        assert prompts_shown(chat) == list(range(8))
        assert chat.shown_turns == 8

        for n in range(8, 12):  # the oldest turns go, folded or not, as many as the chat is over its limit
            screen.turns.send(f"question {n}")
            await pilot.pause()
            await wait_for(pilot, lambda: not screen.busy)
            assert chat.shown_turns == 8
        await wait_for(pilot, lambda: folded_all(chat))
        assert prompts_shown(chat) == list(range(4, 12))
        assert "4 earlier turn(s) hidden" in str(chat._pruned_note.render())
        assert all(card.is_attached for card in chat.cards.values())


async def test_tab_reaches_every_card_folded_or_not(root: Path, tmp_path: Path) -> None:
    """Tab goes through old cards as it did before their turns were folded: the fold is a stop while it holds a
    card, and reaching it opens its first card (the turns after it become widgets again)."""
    (root / "README.md").write_text("# demo\n")
    app = make_app(root, tmp_path, script(SHAPES["tool card"]), approval_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        chat = await run_turns(pilot)
        assert chat.folds and sum(len(fold.turns) for fold in chat.folds) >= 3
        reached: list[str] = []
        for _ in range(4 * TURNS):
            await pilot.press("tab")
            await pilot.pause()
            focused = app.focused
            if isinstance(focused, FoldedTurns):  # the fold hands the focus on to a card as it opens
                await wait_for(pilot, lambda: not isinstance(app.focused, FoldedTurns))
                focused = app.focused
            if isinstance(focused, ToolCallCard) and focused.record.call_id not in reached:
                reached.append(focused.record.call_id)
        assert len(reached) == TURNS, reached
        order = [card.record.call_id for turn in chat.turns for card in turn.query(ToolCallCard)]
        assert reached == order  # top to bottom, as the cards are in the chat
