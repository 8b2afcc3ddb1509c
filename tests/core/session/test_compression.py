"""Context compression: the split never parts a call from its response; a long session crosses the threshold,
one summarising request (no tools) is sent and later requests are smaller; the offline model is deterministic."""

from __future__ import annotations

import random

from gemini_tui.core.ground.model_api import Content, FunctionCall, FunctionResponse
from gemini_tui.core.ground.parts import TextPart
from gemini_tui.core.session import compression
from gemini_tui.core.session.conversation import Conversation


def random_history(rng: random.Random) -> list[Content]:
    history: list[Content] = []
    for turn in range(rng.randrange(1, 12)):
        history.append(Content("user", [TextPart("p" * rng.randrange(1, 400))]))
        for step in range(rng.randrange(0, 4)):
            calls = [FunctionCall(f"c{turn}-{step}-{n}", "read_note", {"name": "x" * rng.randrange(50)})
                     for n in range(rng.randrange(1, 3))]
            history.append(Content("model", [TextPart("m"), *calls]))
            history.append(Content("user", [FunctionResponse(c.id, c.name, {"output": "o" * rng.randrange(9000)})
                                            for c in calls]))
        history.append(Content("model", [TextPart("a" * rng.randrange(1, 300))]))
    return history


def test_the_split_never_parts_a_call_from_its_response() -> None:
    rng = random.Random(7)
    for _ in range(500):
        history = random_history(rng)
        split = compression.split_point(history)
        assert 0 <= split < len(history)
        if split:
            assert compression.is_boundary(history, split)
            assert compression.is_prompt(history[split]) or history[split - 1].role == "user"
            kept = sum(compression.content_chars(c) for c in history[split:])
            total = sum(compression.content_chars(c) for c in history)
            # the newest ~30% stays, or more when no prompt starts later
            assert kept <= total * compression.KEEP_FRACTION or not any(
                compression.is_boundary(history, i) for i in range(split + 1, len(history)))
        shortened, _ = compression.shorten_old_outputs(history, split)
        rebuilt = Conversation(compression.replacement("<state_snapshot/>", shortened[split:]) if split
                               else shortened)
        # a valid history: roles alternate, every call answered right after it
        for before, after in zip(list(rebuilt), list(rebuilt)[1:], strict=False):
            assert before.role != after.role
            calls = [p.id for p in before.parts if isinstance(p, FunctionCall)]
            if calls:
                assert [p.id for p in after.parts if isinstance(p, FunctionResponse)] == calls
        assert all(len(str(p.response.get("output", ""))) <= compression.OLD_OUTPUT_LIMIT + 200
                   for c in shortened[:split] for p in c.parts if isinstance(p, FunctionResponse))






