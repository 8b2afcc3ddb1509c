"""The compressor part: a long session crosses the threshold, one summarising request (no tools) is sent and later
requests are smaller; /compress with the offline model is deterministic; a long prompt is compressed while it runs."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from gemini_tui.core.ground.events import ContextUsed, HistoryCompressed
from gemini_tui.core.models.offline import OfflineModel
from gemini_tui.core.session import compression
from tests.core.conftest import EventLog
from tests.fakes.gemini_server import call, reply, text


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

    loaded = read_session(session.state.recorder.writer.path)
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


async def test_a_200_call_prompt_is_compressed_while_it_runs(gemini_server, make_session, root: Path) -> None:
    # one prompt, 200 calls each reading 6 KB: with a small threshold the history is compressed between the
    # model's turns of that one prompt, every request stays under the limit, calls stay paired, the latest
    # outputs are sent whole
    calls = 200
    for k in range(calls):  # 200 notes of ~6 KB (a different one each call: the same call repeated is a loop)
        (root / f"note{k:03d}.txt").write_text("".join(f"line {n:05d} of note {k:03d}\n" for n in range(240)))
    answered = {"turns": 0}

    def respond(request):  # the model: one call per turn until 200, then an answer; summaries on request
        if "[gemini-tui compression]" in str(request.body.get("systemInstruction", "")):
            return reply(text(f"<state_snapshot>read {answered['turns']} notes</state_snapshot>"))
        answered["turns"] += 1
        if answered["turns"] <= calls:
            return reply(text(f"Reading note {answered['turns'] - 1}."),
                         call("read_note", name=f"note{answered['turns'] - 1:03d}.txt"))
        return reply(text("Read all 200 notes."))

    gemini_server.responder = respond
    threshold = 0.01  # of gemini-2.5-pro's 1M-token window: ~10.5k tokens, about seven outputs
    session = make_session(interactive=False, compression_threshold=threshold, max_session_turns=calls + 5)
    log = EventLog(session.bus)
    await session.send("read the 200 notes")
    await log.settle()
    limit = threshold * compression.context_window("gemini-2.5-pro")

    turns = [r for r in gemini_server.requests if "[gemini-tui compression]" not in
             str(r.body.get("systemInstruction", ""))]
    assert len(turns) == calls + 1
    marks = log.of(HistoryCompressed)
    assert len(marks) >= 10 and any(m.summarised for m in marks)
    used = [e.tokens for e in log.of(ContextUsed)]
    assert len(used) >= calls and max(used) < limit  # every request under the threshold, all the way through
    assert max(len(json.dumps(r.body["contents"])) for r in turns) < 4 * limit * 1.2
    for request in turns:
        contents = request.body["contents"]
        assert contents[0]["role"] == "user"
        for before, after in itertools.pairwise(contents):
            assert before["role"] != after["role"]
            asked = [p["functionCall"]["name"] for p in before["parts"] if "functionCall" in p]
            if asked:  # each call answered right after it
                assert [p["functionResponse"]["name"] for p in after["parts"] if "functionResponse" in p] == asked
        sent_calls = sum(1 for c in contents for p in c["parts"] if "functionCall" in p)
        sent_responses = sum(1 for c in contents for p in c["parts"] if "functionResponse" in p)
        assert sent_calls == sent_responses
    last = turns[-1].body["contents"]
    outputs = [p["functionResponse"]["response"] for c in last for p in c["parts"] if "functionResponse" in p]
    assert outputs[-1] == {"output": (root / "note199.txt").read_text()}  # the latest calls verbatim
    assert outputs[-2] == {"output": (root / "note198.txt").read_text()}
    assert len(session.registry.get("read_note").runs) == calls  # type: ignore[union-attr]
