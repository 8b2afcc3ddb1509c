"""A call's card follows its call's state with one class, and only the card is styled again when it changes (the
state colours the card's own border): an agent's card holds its calls and its ending, which a restyle of the
whole subtree styled again on every state change. Each case is a walk through the states generated from a seed;
after each step the card and everything in it are styled exactly as a full restyle styles them."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode

from gemini_tui.core.ground.events import CallState, CallStateChanged, ToolCallInfo
from tests.app.app_driver import wait_for
from tests.app.test_group_calls import child, group_in_front
from tests.app.test_several_sessions import window
from tests.fakes.scripted_model import ScriptedModel

STATES = [CallState.scheduled, CallState.executing, CallState.awaiting_approval, CallState.executing,
          CallState.success, CallState.error, CallState.cancelled]


def walk(seed: int) -> list[CallState]:
    rng = random.Random(seed)
    return [rng.choice(STATES) for _ in range(6)]


def looks(node: DOMNode) -> tuple[Any, ...]:
    return (node.styles.border_left, node.styles.color, node.styles.background, node.rich_style)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
async def test_a_cards_state_change_styles_the_card_alone_and_as_a_full_restyle_would(
        root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    styled: list[DOMNode] = []
    apply = Stylesheet.apply

    def counted(self: Stylesheet, node: DOMNode, *args: Any, **kwargs: Any) -> None:
        styled.append(node)
        apply(self, node, *args, **kwargs)

    app = window(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(120, 40)) as pilot:
        screen, card = await group_in_front(pilot, app)
        for n in range(3):  # the agent's calls: nodes inside its card
            screen.session.bus.publish(CallStateChanged(child(n)))
        await wait_for(pilot, lambda: len(card.children_records) == 3)
        await pilot.pause(0.3)
        inside = set(card.walk_children(with_self=True))
        assert len(inside) > 3
        monkeypatch.setattr(Stylesheet, "apply", counted)
        for state in walk(seed):
            styled.clear()
            info = ToolCallInfo("a", "invoke_agent", {"agent_name": "scout", "prompt": "look"}, state)
            screen.session.bus.publish(CallStateChanged(info))
            await wait_for(pilot, lambda state=state: card.record.call.state is state and card.has_class(
                f"-{state.value}"))
            await pilot.pause(0.05)
            assert [name for name in card.classes if name.lstrip("-") in {s.value for s in CallState}] == [
                f"-{state.value}"]
            again = [node for node in styled if node in inside and node is not card]
            assert again == [], f"{len(again)} nodes inside the card were styled again"
            nodes = list(card.walk_children(with_self=True))
            before = [looks(node) for node in nodes]
            app.stylesheet.update_nodes(nodes)  # a full restyle changes nothing: the card was styled right
            assert [looks(node) for node in nodes] == before
