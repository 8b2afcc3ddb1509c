"""Subagents in the app: each running invoke_agent call is a group in the live queue and in the chat (its agent,
its own calls nested under it, its progress, its result), several at once stay apart, the history panel filters by
agent, and a subagent's confirmation names the agent that asks."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Label

from gemini_tui.app import decision_keys as keys
from gemini_tui.app.call_log import CallLog
from gemini_tui.app.screens.diff_review import DiffReviewScreen
from gemini_tui.app.screens.picker import PickerScreen
from gemini_tui.app.widgets.chat import ChatPane
from gemini_tui.app.widgets.confirm_bar import ConfirmBar
from gemini_tui.app.widgets.history_panel import HistoryPanel
from gemini_tui.app.widgets.queue import QUEUE_LINES, ToolQueue, queue_text
from gemini_tui.core.ground.events import CallState, ToolCallInfo
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.app.test_confirmations import GRACE
from tests.core.agents.world import agent_file
from tests.fakes.scripted_model import RoutedModel, call, text

# agent, its tool, the call it makes (each agent's body is its marker: the routed model answers it from its script)
AGENTS: list[tuple[str, str, dict[str, Any]]] = [
    ("alpha", "read_file", {"absolute_path": "notes.txt"}),
    ("beta", "glob", {"pattern": "*.txt"}),
    ("gamma", "list_directory", {"dir_path": "."}),
]
GROUP_INDENT = "    "  # a group's own rows in the queue
SHOWN_AS = {"read_file": "ReadFile", "glob": "FindFiles", "list_directory": "ReadFolder"}


def agents_world(root: Path, tmp_path: Path, count: int) -> tuple[RoutedModel, list[asyncio.Event]]:
    """`count` read-only agents (so they run at once), each making one call, then held before it finishes until
    its event is set; the session's model starts them all in one turn."""
    (root / "notes.txt").write_text("hello\n")
    model = RoutedModel()
    holds = []
    for name, tool, args in AGENTS[:count]:
        agent_file(tmp_path / "home" / ".gemini" / "agents", name, f"You are {name.upper()}-BODY.", tools=[tool])
        hold = asyncio.Event()
        holds.append(hold)
        args = {key: str(root / value) if key != "pattern" else value for key, value in args.items()}
        model.route(f"{name.upper()}-BODY").add(call(tool, **args)).add(
            text(""), call("complete_task", result=f"{name} found it\nsecond line"), wait=hold)
    model.add(*[call("invoke_agent", agent_name=name, prompt=f"task for {name}") for name, _, _ in AGENTS[:count]])
    model.add(text("All done."))
    return model, holds


def groups(rendered: str) -> dict[str, list[str]]:
    """The queue's rows by group: each `@agent` row and the indented rows under it."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in rendered.splitlines()[1:]:
        if line.startswith(GROUP_INDENT):
            assert current is not None, rendered
            current.append(line.strip())
        elif "@" in line:
            current = found.setdefault(line.split("@", 1)[1].split()[0], [])
        else:
            current = None
    return found


@pytest.mark.parametrize("count", [2, 3])
async def test_agents_at_once_are_separate_groups(root: Path, tmp_path: Path, count: int) -> None:
    model, holds = agents_world(root, tmp_path, count)
    names = [name for name, _, _ in AGENTS[:count]]
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(140, 44)) as pilot:
        screen = main_screen(pilot)
        queue, chat = screen.query_one(ToolQueue), screen.query_one(ChatPane)
        await type_and_send(pilot, "investigate")
        # every agent has made its call and is held: all of them run at once
        await wait_for(pilot, lambda: sum(1 for r in screen.calls.records() if r.call.agent
                                          and r.result is not None) == count)

        def agent_cards() -> dict[str, Any]:
            return {card.record.call.args["agent_name"]: card for card in chat.cards.values()
                    if card.record.call.name == "invoke_agent"}

        def cards_hold_their_calls() -> bool:
            # the call log is told first; each card takes its call on the event that follows (a loaded machine
            # can be between the two)
            held, shown = agent_cards(), groups(str(queue.queue_text()))
            return sorted(held) == names and sorted(shown) == names and all(
                len(shown[name]) == 1 and "done" in shown[name][0]
                and [r.call.name for r in held[name].children_records] == [tool]
                and held[name].calls.rows == [held[name].children_records[0].call_id]
                for name, tool, _ in AGENTS[:count])

        await wait_for(pilot, cards_hold_their_calls)
        rendered = str(queue.queue_text())
        shown = groups(rendered)
        assert sorted(shown) == names, rendered
        for name, tool, _ in AGENTS[:count]:
            [row] = shown[name]  # its one call, under it and no other group
            assert row.startswith(f"✓ {SHOWN_AS[tool]} ") and "done" in row, rendered
        header = {line.split("@", 1)[1].split()[0]: line for line in rendered.splitlines() if "@" in line}
        for name in names:
            assert "running" in header[name] and "1 call: 1 done" in header[name], rendered
        cards = agent_cards()
        assert sorted(cards) == names
        for name, tool, _ in AGENTS[:count]:
            card = cards[name]
            assert [r.call.name for r in card.children_records] == [tool]
            # its call is a line of the group's folded calls, drawn as its card draws it
            assert card.folded and card.calls.rows == [card.children_records[0].call_id]
            await wait_for(pilot, lambda card=card, tool=tool: str(card.calls.content).startswith(  # redrawn within
                f"▌ ✓ {SHOWN_AS[tool]} "))  # EVERY_S of its last change
            assert "1 call: 1 done" in str(card.header_text())
        for hold in holds:
            hold.set()
        await wait_for(pilot, lambda: not screen.busy)
        for name in names:
            card = cards[name]
            assert "done" in str(card.header_text())
            said = str(card.ending.render())
            assert card.ending.display and f"GOAL: {name} found it" in said and "second line" not in said
        # Enter on a finished group opens the result in full
        card = cards[names[0]]
        card.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: card.expanded and "second line" in str(card.query(".call-body").first()
                                                                                   .query("Markdown").first()._markdown))
        # Enter on its folded calls unfolds them into cards, the first one focused
        card.calls.focus()
        await pilot.press("enter")
        child = chat.cards[card.children_records[0].call_id]
        await wait_for(pilot, lambda: not card.folded and child.is_mounted and child.has_focus)
        assert list(card.calls.children) == [child] and f"✓ {SHOWN_AS[AGENTS[0][1]]} " in str(child.header.content)
    assert len(model.requests) == 2  # the session's model: the turn, then the one response of each call


async def test_history_panel_filters_by_agent(root: Path, tmp_path: Path) -> None:
    model, holds = agents_world(root, tmp_path, 2)
    for hold in holds:
        hold.set()
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(140, 44)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "investigate")
        await wait_for(pilot, lambda: not screen.busy and len(screen.calls) == 4)
        await pilot.press("ctrl+b")
        panel = screen.query_one(HistoryPanel)
        await wait_for(pilot, lambda: len(panel.visible_ids) == 4)

        def visible() -> list[tuple[str, str]]:
            return sorted((panel.entries[cid].call.agent or "main", panel.entries[cid].call.name)
                          for cid in panel.visible_ids)

        everyone = visible()
        expected = {
            "main": [("main", "invoke_agent"), ("main", "invoke_agent")],
            "alpha": [("alpha", "read_file"), ("main", "invoke_agent")],
            "beta": [("beta", "glob"), ("main", "invoke_agent")],
        }
        for name, rows in expected.items():
            panel.set_filter(f"agent:{name}")
            await wait_for(pilot, lambda rows=rows: visible() == rows)
        # Ctrl+R steps through them from the panel's filter: main, each agent, then everyone again
        panel.set_filter("")
        await pilot.pause()
        for name in ["main", "alpha", "beta", None]:
            await pilot.press("ctrl+r")
            assert panel.filter_text == (f"agent:{name}" if name else "")
            await wait_for(pilot, lambda name=name: visible() == (expected[name] if name else everyone))
        # the agent term goes with the rest of the filter
        panel.set_filter("read agent:alpha")
        await wait_for(pilot, lambda: visible() == [("alpha", "read_file")])


async def held_on_confirmation(pilot: Pilot[Any]) -> None:
    screen = main_screen(pilot)
    await wait_for(pilot, lambda: screen.query_one(ConfirmBar).request is not None
                   or isinstance(pilot.app.screen, DiffReviewScreen))


# the tool a subagent calls that needs the user, and where its question's title is read
ASKS = {
    "run_shell_command": ({"command": "echo hi > out.txt"},
                          lambda pilot: str(main_screen(pilot).query_one(ConfirmBar).title_line.render())),
    "write_file": ({"file_path": "new.txt", "content": "hi\n"},
                   lambda pilot: str(pilot.app.screen.query_one("#review-title", Label).render())),
}


@pytest.mark.parametrize("tool", sorted(ASKS))
async def test_a_subagents_confirmation_names_the_agent(root: Path, tmp_path: Path, tool: str) -> None:
    args, title = ASKS[tool]
    args = {key: str(root / value) if key == "file_path" else value for key, value in args.items()}
    agent_file(tmp_path / "home" / ".gemini" / "agents", "writer", "You are WRITER-BODY.", tools=[tool])
    model = RoutedModel()
    model.route("WRITER-BODY").add(call(tool, **args)).add(call("complete_task", result="wrote it"))
    model.add(call("invoke_agent", agent_name="writer", prompt="write it")).add(text("Done."))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "write")
        await held_on_confirmation(pilot)
        assert "Subagent writer: " in title(pilot), title(pilot)
        await pilot.pause(GRACE)
        await pilot.press(keys.ALLOW_ONCE)  # answered there, as the session's own calls are
        await wait_for(pilot, lambda: not main_screen(pilot).busy)
    assert (root / ("out.txt" if tool == "run_shell_command" else "new.txt")).read_text() == "hi\n"


async def test_a_resumed_session_draws_the_groups_again(root: Path, tmp_path: Path) -> None:
    model, holds = agents_world(root, tmp_path, 2)
    for hold in holds:
        hold.set()
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(140, 44)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "investigate")
        await wait_for(pilot, lambda: not screen.busy and len(screen.calls) == 4 and not screen.session.is_running)

    def grouped(chat: ChatPane) -> dict[str, list[str]]:
        return {card.record.call.args["agent_name"]: [r.call.name for r in card.children_records]
                for card in chat.cards.values() if card.record.call.name == "invoke_agent"}

    again = make_app(root, tmp_path, RoutedModel())
    async with again.run_test(size=(140, 44)) as pilot:
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: screen.ready)
        await type_and_send(pilot, "/resume")
        await wait_for(pilot, lambda: isinstance(again.screen, PickerScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(screen.chat.cards) == 4)
        assert grouped(screen.chat) == {"alpha": ["read_file"], "beta": ["glob"]}
        for card in screen.chat.cards.values():
            if card.record.call.name == "invoke_agent":
                assert "GOAL: " in str(card.ending.render())  # type: ignore[attr-defined]
        # the history panel filters the resumed calls by agent too
        await pilot.press("ctrl+b")
        panel = screen.query_one(HistoryPanel)
        panel.set_filter("agent:beta")
        await wait_for(pilot, lambda: sorted(panel.entries[c].call.name for c in panel.visible_ids)
                       == ["glob", "invoke_agent"])


# each group's own calls, by state: what the queue must show of it when several agents share its lines
GROUP_CALLS = [CallState.success, CallState.success, CallState.executing, CallState.awaiting_approval,
               CallState.scheduled]


@pytest.mark.parametrize("agents", [1, 2, 3, 4])
def test_several_groups_share_the_queues_lines(agents: int) -> None:
    """However many agents run at once (agents.maxParallel is 4 by default), the queue fits its box, every group
    keeps its own line with its counts, and a call waiting for the user is shown in its group."""
    log = CallLog()
    records = []
    for index in range(agents):
        name = f"agent{index}"
        records.append(log.update(ToolCallInfo(f"g{index}", "invoke_agent", {"agent_name": name, "prompt": "go"},
                                               CallState.executing)))
        for number, state in enumerate(GROUP_CALLS):
            record = log.update(ToolCallInfo(f"g{index}-{number}", "read_file", {}, state, f"file{number}",
                                             "ReadFile", agent=name, parent_call_id=f"g{index}"))
            if state is CallState.executing:
                log.add_output(record.call_id, "reading")
            records.append(record)
    rendered = queue_text(records, 0.0).plain
    lines = rendered.splitlines()
    assert len(lines) <= QUEUE_LINES, rendered
    shown = groups(rendered)
    assert sorted(shown) == [f"agent{index}" for index in range(agents)], rendered
    for index in range(agents):
        header = next(line for line in lines if f"@agent{index} " in line)
        assert "5 calls: 2 done, 1 running, 1 awaiting approval, 1 waiting" in header, rendered
        assert shown[f"agent{index}"][0].startswith("? ReadFile  file3  awaiting approval"), rendered
    if agents == 1:  # room for all of it: the rows that matter, then the rest counted
        assert len(shown["agent0"]) == 5 and shown["agent0"][-1].startswith("… "), rendered
