"""A long session stays light: turns scrolled out of the chat leave nothing of theirs alive, while the chat still
says how many it hides, the history panel still lists and filters every call, and the session keeps every turn."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest
from textual._styles_cache import StylesCache
from textual.pilot import Pilot
from textual.widget import Widget

from gemini_tui.app.widgets import chat as chat_module
from gemini_tui.app.widgets.answer import AnswerBlock, MarkdownText
from gemini_tui.app.widgets.chat import ToolCallCard, TurnBlock
from tests.app.app_driver import main_screen, make_app, wait_for
from tests.fakes.scripted_model import ScriptedModel, call, text

SHOWN = 4  # turns the chat keeps, lowered from the app's figure so a test runs past it in a few seconds
BATCH = 3 * SHOWN  # turns run between two counts; even, so each batch has as many calls as the other
# a widget's line cache holds the lines it drew: it must go with its widget
KINDS: tuple[type[Any], ...] = (Widget, TurnBlock, MarkdownText, AnswerBlock, ToolCallCard, StylesCache)


def script(turns: int) -> ScriptedModel:
    model = ScriptedModel(record=False)
    for n in range(turns):
        if n % 2 == 0:  # every other turn runs a tool first: a card, a queue entry, a history row
            model.add(call("glob", pattern="*.md"))
        model.add(text(f"Answer **{n}**:\n\n- a point\n\n```python\nprint({n})\n```\n"))
    return model


def live() -> dict[type[Any], int]:
    """How many objects of each kind are alive, in the whole process (other tests' leftovers only ever go)."""
    gc.collect()
    counts = dict.fromkeys(KINDS, 0)
    for obj in gc.get_objects():
        for kind in KINDS:
            if isinstance(obj, kind):
                counts[kind] += 1
    return counts


async def run_turns(pilot: Pilot[Any], first: int, count: int) -> None:
    screen = main_screen(pilot)
    for n in range(first, first + count):
        screen.turns.send(f"question {n}")
        await pilot.pause()
        await wait_for(pilot, lambda: not screen.busy)
    await pilot.pause()


@pytest.fixture
def few_turns_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chat_module, "MAX_TURNS_SHOWN", SHOWN)


@pytest.mark.usefixtures("few_turns_shown")
async def test_turns_past_the_chat_leave_nothing_alive(root: Path, tmp_path: Path) -> None:
    (root / "README.md").write_text("# demo\n")
    app = make_app(root, tmp_path, script(3 * BATCH))
    async with app.run_test(size=(120, 40)) as pilot:
        await run_turns(pilot, 0, BATCH)  # past the chat's limit: pruning is under way
        before = live()
        await run_turns(pilot, BATCH, BATCH)
        after = live()
        # each kind as many as a batch ago: the turns pruned meanwhile took their widgets (and lines) with them
        grown = {kind.__name__: after[kind] - before[kind] for kind in KINDS if after[kind] > before[kind]}
        assert not grown, grown


@pytest.mark.usefixtures("few_turns_shown")
async def test_a_long_session_shows_its_last_turns_and_keeps_every_call(root: Path, tmp_path: Path) -> None:
    (root / "README.md").write_text("# demo\n")
    turns = 3 * SHOWN
    app = make_app(root, tmp_path, script(turns), approval_mode="yolo")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        await run_turns(pilot, 0, turns)
        chat = screen.chat
        assert len(chat.turns) == len(chat.query(TurnBlock)) == SHOWN
        assert f"{turns - SHOWN} earlier turn(s) hidden" in str(chat._pruned_note.render())
        answers = [answer.text for answer in chat.query(AnswerBlock)]
        assert all(f"**{n}**" in answer for n, answer in zip(range(turns - SHOWN, turns), answers, strict=True))
        calls = (turns + 1) // 2
        assert len(screen.calls) == calls
        assert len(chat.cards) == len(chat.query(ToolCallCard)) == SHOWN // 2  # only the cards still shown
        # the history panel browses and filters all of them, the pruned turns' calls too
        await wait_for(pilot, lambda: screen.history.panel is not None)
        panel = screen.history.panel
        assert panel is not None
        await pilot.press("ctrl+b")
        await wait_for(pilot, lambda: panel.option_list.option_count == calls)
        panel.set_filter("agent:main")
        await wait_for(pilot, lambda: panel.visible_ids and len(panel.visible_ids) == calls)
        panel.set_filter("no-such-tool")
        await wait_for(pilot, lambda: panel.option_list.option_count == 0)
        # the session holds the whole conversation: each turn's prompt is in it
        prompts = [content for content in screen.session.history if content.role == "user"]
        said = " ".join(str(part) for content in prompts for part in content.parts)
        assert all(f"question {n}" in said for n in range(turns))
