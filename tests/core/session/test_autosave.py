"""The autosave part: every turn saved through the real Session and the fake Gemini server, a new session resuming
it (by number or id), the list, delete and pruning, and a resume counting on from the saved usage."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gemini_tui.core.persistence.records import display_from_json
from gemini_tui.core.persistence.store import SessionStore, parse_age, project_dir, read_session
from gemini_tui.core.session import compression
from tests.fakes.gemini_server import call, reply, text


def usage(prompt: int, candidates: int) -> dict[str, int]:
    return {"promptTokenCount": prompt, "candidatesTokenCount": candidates, "totalTokenCount": prompt + candidates}


def store_of(home: Path, root: Path) -> SessionStore:
    return SessionStore(project_dir(home / ".gemini", root))


async def two_turns(gemini_server, make_session, root: Path):
    (root / "a").write_text("A")
    gemini_server.script(reply(text("Reading."), call("read_note", name="a")), reply(text("It says A.")),
                         reply(text("Second answer.")))
    session = make_session()
    await session.send("read a")
    await session.send("and then?")
    return session


async def test_every_turn_is_saved_and_a_new_session_resumes_it(gemini_server, make_session, root, home) -> None:
    session = await two_turns(gemini_server, make_session, root)
    [summary] = store_of(home, root).summaries()
    assert (summary.index, summary.id, summary.first_prompt, summary.turns) == (1, session.session_id, "read a", 2)
    loaded = read_session(summary.path)
    assert loaded.problems == []
    assert loaded.history == session.history
    assert [e.kind for e in loaded.transcript] == ["prompt", "answer", "call", "answer", "prompt", "answer"]
    call_entry = loaded.transcript[2].data
    assert call_entry["name"] == "read_note" and call_entry["state"] == "success"
    assert display_from_json(call_entry["display"]) == "A"

    fresh = make_session()
    fresh.saved.resume("latest")
    assert fresh.session_id == session.session_id and fresh.history == session.history
    gemini_server.script(reply(text("Third.")))
    await fresh.send("third")
    sent = gemini_server.requests[-1].contents
    assert [c["role"] for c in sent] == ["user", "model", "user", "model", "user", "model", "user"]
    assert sent[-1]["parts"] == [{"text": "third"}] and sent[0]["parts"] == [{"text": "read a"}]
    # the same file goes on: one session, three prompts
    [again] = store_of(home, root).summaries()
    assert again.turns == 3 and read_session(again.path).history == fresh.history


async def test_resume_by_number_and_id_list_and_delete(gemini_server, make_session, root, home) -> None:
    first = await two_turns(gemini_server, make_session, root)
    gemini_server.script(reply(text("Other.")))
    second = make_session()
    await second.send("other session")
    store = store_of(home, root)
    assert [s.id for s in store.summaries()] == [first.session_id, second.session_id]
    assert store.find("1").id == first.session_id
    assert store.find(second.session_id[:8]).id == second.session_id
    assert store.find("latest").id == second.session_id
    with pytest.raises(LookupError, match="No session 7"):
        store.find("7")
    with pytest.raises(LookupError, match="in use"):
        second.saved.delete("2")
    assert first.saved.delete("2").id == second.session_id
    assert [s.id for s in store.summaries()] == [first.session_id]


async def test_pruning_by_count_and_age_keeps_the_current_one(gemini_server, make_session, root, home) -> None:
    ids = []
    for n in range(4):
        gemini_server.script(reply(text(f"answer {n}")))
        session = make_session()
        await session.send(f"prompt {n}")
        ids.append(session.session_id)
        os.utime(session.state.recorder.writer.path, (1000 + n * 100000, 1000 + n * 100000))
    store = store_of(home, root)
    gone = store.prune(max_count=2, keep=ids[0])
    assert {s.id for s in gone} == {ids[1]}
    assert {s.id for s in store.summaries()} == {ids[0], ids[2], ids[3]}
    gone = store.prune(max_age_s=parse_age("1d"), keep=ids[3])
    assert {s.id for s in gone} == {ids[0], ids[2]}


async def test_a_resume_counts_on_from_the_saved_usage(gemini_server, make_session, root, home) -> None:
    """Each request's usage is saved; a resume carries its tokens over and takes the context share from the last
    count while the history is as it was then (a compression or rewind since: the estimate)."""
    gemini_server.script(reply(text("One."), usage=usage(1000, 10)), reply(text("Two."), usage=usage(3000, 20)))
    first = make_session()
    await first.send("one")
    await first.send("two")
    loaded = read_session(store_of(home, root).summaries()[0].path)
    assert (loaded.tokens_spent, loaded.context_tokens) == (1010 + 3020, 3020)

    fresh = make_session()
    seen: list[object] = []
    fresh.bus.tap(seen.append)
    fresh.saved.resume("latest")
    assert fresh.stats.conversation_tokens == 4030 and fresh.stats.total_tokens == 0  # /stats: this run's own
    assert fresh.context_used().tokens == 3020
    assert any(getattr(e, "session_total", None) == 4030 for e in seen)
    assert any(getattr(e, "tokens", None) == 3020 and getattr(e, "window", 0) > 0 for e in seen)
    gemini_server.script(reply(text("Three."), usage=usage(4000, 5)))
    await fresh.send("three")
    assert fresh.stats.conversation_tokens == 4030 + 4005 and fresh.stats.total_tokens == 4005
    fresh.clear()  # a new conversation: the count is the run's own again
    assert fresh.stats.conversation_tokens == 4005 and fresh.context_used().tokens == 0

    # a file of an older build (no usage records), or one compressed after its last count: the estimate
    path = store_of(home, root).summaries()[0].path
    lines = path.read_text().splitlines()
    path.write_text("\n".join(line for line in lines if '"usage"' not in line) + "\n")
    older = make_session()
    older.saved.resume("latest")
    assert older.stats.conversation_tokens == 0
    assert older.context_used().tokens == compression.estimate_tokens(older.history) > 0
    path.write_text("\n".join([*lines, json.dumps({"kind": "compressed", "before": 9, "after": 3,
                                                   "summarised": True})]) + "\n")
    assert read_session(path).context_tokens is None and read_session(path).tokens_spent == 4030 + 4005
