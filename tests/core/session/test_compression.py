"""Context compression: the split never parts a call from its response; a long session crosses the threshold,
one summarising request (no tools) is sent and later requests are smaller; the offline model is deterministic."""

from __future__ import annotations

import random
from pathlib import Path

from gemini_tui.core.ground.events import ContextUsed, HistoryCompressed
from gemini_tui.core.ground.model_api import Content, FunctionCall, FunctionResponse
from gemini_tui.core.ground.parts import TextPart
from gemini_tui.core.models.offline import OfflineModel
from gemini_tui.core.session import compression
from gemini_tui.core.session.conversation import Conversation
from tests.core.conftest import EventLog
from tests.fakes.gemini_server import reply, text


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
            assert compression.is_prompt(history[split]) and history[split - 1].role == "model"
            kept = sum(compression.content_chars(c) for c in history[split:])
            total = sum(compression.content_chars(c) for c in history)
            # the newest ~30% stays, or more when no prompt starts later
            assert kept <= total * compression.KEEP_FRACTION or not any(
                compression.is_prompt(c) for c in history[split + 1:])
        shortened, _ = compression.shorten_old_outputs(history, split)
        rebuilt = Conversation([*compression.replacement("<state_snapshot/>"), *shortened[split:]] if split
                               else shortened)
        # a valid history: roles alternate, every call answered right after it
        for before, after in zip(list(rebuilt), list(rebuilt)[1:], strict=False):
            assert before.role != after.role
            calls = [p.id for p in before.parts if isinstance(p, FunctionCall)]
            if calls:
                assert [p.id for p in after.parts if isinstance(p, FunctionResponse)] == calls
        assert all(len(str(p.response.get("output", ""))) <= compression.OLD_OUTPUT_LIMIT + 200
                   for c in shortened[:split] for p in c.parts if isinstance(p, FunctionResponse))


async def test_a_long_session_is_compressed_once_and_then_smaller(gemini_server, make_session, root: Path) -> None:
    # gemini-2.5-pro has a 1M window: a tiny threshold makes ~5k tokens the limit
    session = make_session(interactive=False, compression_threshold=0.005)
    log = EventLog(session.bus)
    # every request gets a long answer; the one request that summarises takes whichever reply comes next
    gemini_server.script(*[reply(text(f"Answer {n}: " + " ".join(f"word{n}-{i}" for i in range(300))))
                           for n in range(13)])
    sizes = []
    for n in range(9):
        await session.send(f"prompt {n}: say again what the big file holds, in detail please")
        sizes.append(len(str(gemini_server.requests[-1].body["contents"])))
    await log.settle()
    summaries = [r for r in gemini_server.requests
                 if "[gemini-tui compression]" in str(r.body.get("systemInstruction", ""))]
    assert len(summaries) == 1
    [summary] = summaries
    assert not summary.body.get("tools")  # the summarising request offers no tools
    assert "Condense everything above" in str(summary.contents[-1])
    [mark] = log.of(HistoryCompressed)
    assert mark.summarised and mark.after_tokens < mark.before_tokens
    assert session.stats.tokens_saved == mark.before_tokens - mark.after_tokens > 0
    after = gemini_server.requests[gemini_server.requests.index(summary) + 1]
    assert "Answer" in str(after.contents[0]) and len(str(after.body["contents"])) < max(sizes)
    assert log.of(ContextUsed) and all(0 <= e.percent <= 100 for e in log.of(ContextUsed))
    # the saved session replays to the compressed history
    from gemini_tui.core.persistence.store import read_session

    loaded = read_session(session.recorder.writer.path)
    assert loaded.history == list(session.history)
    assert [e for e in loaded.transcript if e.kind == "compressed"]


async def test_compress_on_demand_with_the_offline_model_is_deterministic(root: Path, home: Path) -> None:
    from gemini_tui.core.session.session import Session
    from gemini_tui.core.setup.config import Settings
    from gemini_tui.core.tooling.registry import ToolRegistry

    results = []
    for _ in range(2):
        model = OfflineModel(root)
        model.chunk_delay_s = 0
        session = Session(Settings(home=home), ToolRegistry(), model, root)
        for n in range(4):
            await session.send(f"help number {n}")
        done = await session.compress()
        assert done is not None and done.summarised
        results.append(list(session.history))
    assert results[0] == results[1]
    assert "<overall_goal>help number 0</overall_goal>" in results[0][0].parts[0].text
