"""Autosave and resume through the real Session and the fake Gemini server; damaged session files."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from gemini_tui.core.ground.content import contents_to_json
from gemini_tui.core.ground.display import (
    DirectoryListing,
    FileDiff,
    LineMatch,
    ListingEntry,
    SearchMatches,
    ShellOutput,
)
from gemini_tui.core.ground.model_api import FunctionCall, FunctionResponse
from gemini_tui.core.persistence.records import NotASession, display_from_json, display_to_json
from gemini_tui.core.persistence.store import SessionStore, parse_age, project_dir, read_session
from gemini_tui.core.session import compression
from gemini_tui.core.session.conversation import Conversation
from tests.fakes.gemini_server import call, reply, text


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


def write_lines(path: Path, lines: list[bytes]) -> None:
    path.write_bytes(b"\n".join(lines))


async def test_a_torn_last_record_is_skipped_with_a_notice(gemini_server, make_session, root, home) -> None:
    session = await two_turns(gemini_server, make_session, root)
    path = session.state.recorder.writer.path
    data = path.read_bytes()
    whole = read_session(path)
    rng = random.Random(12)
    # cut the file at a hundred random places: every cut loads, the records before the cut all survive
    for cut in sorted(rng.sample(range(len(data.split(b"\n")[0]) + 1, len(data)), 100)):
        torn = root.parent / "torn.jsonl"
        torn.write_bytes(data[:cut])
        loaded = read_session(torn)
        assert len(loaded.history) <= len(whole.history)
        assert loaded.history == whole.history[:len(loaded.history)]
        if not data[:cut].endswith(b"\n") and data[cut:cut + 1] != b"\n":  # a whole last record is kept
            assert loaded.problems and "was cut off" in loaded.problems[-1], data[cut - 40:cut + 5]
    # resuming a torn file appends after a fresh newline: the next read has no damage beyond the torn line
    path.write_bytes(data[:-5])
    resumed = make_session()
    resumed.saved.resume("latest")
    assert any("cut off" in n.message for n in resumed.notices)
    gemini_server.script(reply(text("After the tear.")))
    await resumed.send("go on")
    again = read_session(path)
    assert len(again.problems) == 1 and "line" in again.problems[0]
    assert again.history[-1].parts[0].text == "After the tear."


async def test_damaged_lines_are_skipped_and_the_rest_loads(gemini_server, make_session, root, home) -> None:
    session = await two_turns(gemini_server, make_session, root)
    path = session.state.recorder.writer.path
    lines = path.read_bytes().split(b"\n")
    rng = random.Random(5)
    for _ in range(200):
        damaged = list(lines)
        index = rng.randrange(1, len(damaged) - 1)
        line = damaged[index]
        match rng.randrange(4):
            case 0:
                damaged[index] = line[: rng.randrange(len(line))]
            case 1:
                damaged[index] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
            case 2:
                damaged[index] = b'{"kind":"history","from":999,"contents":[]}'
            case 3:
                damaged[index] = b'["not", "an", "object"]'
        target = root.parent / "damaged.jsonl"
        write_lines(target, damaged)
        loaded = read_session(target)  # never raises
        assert loaded.id == session.session_id
        assert loaded.problems, damaged[index]


@pytest.mark.parametrize("content", [b"", b"\n", b"hello\n", b'{"kind":"meta"}\n', b"\xff\xfe\x00garbage",
                                     b'{"format":"gemini-tui-session","id":"x","v":99}\n'])
def test_foreign_files_are_named_never_loaded_or_deleted(content: bytes, root: Path, home: Path) -> None:
    store = store_of(home, root)
    store.chats.mkdir(parents=True)
    foreign = store.chats / "session-foreign.jsonl"
    foreign.write_bytes(content)
    [summary] = store.summaries()
    assert not summary.readable and summary.problem
    with pytest.raises(NotASession):
        read_session(foreign)
    with pytest.raises(LookupError, match="No saved sessions"):
        store.find("latest")
    assert store.prune(max_count=0) == []
    assert foreign.read_bytes() == content


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


async def test_bookmarks_fork_the_session_at_that_point(gemini_server, make_session, root, home) -> None:
    session = await two_turns(gemini_server, make_session, root)
    session.chats.save("before third")
    at_bookmark = list(session.history)
    gemini_server.script(reply(text("Third.")))
    await session.send("third")
    assert session.chats.list() == ["before third"]
    session.chats.resume("before third")
    assert session.history == at_bookmark
    assert len(store_of(home, root).summaries()) == 2  # the bookmarked session stays whole


def test_displays_round_trip() -> None:
    displays = [
        "plain text",
        FileDiff.between("/r/a.py", "a\r\nb\n", "a\r\nc\n"),
        DirectoryListing("/r", (ListingEntry("x", True), ListingEntry("y.txt", False, 3)), 2),
        SearchMatches("p", ".", None, (LineMatch("a.py", 3, "p()"),)),
        ShellOutput("ls", "/r", "a\nb", 0, background_pids=(12, 13)),
    ]
    for display in displays:
        encoded = json.loads(json.dumps(display_to_json(display)))
        assert display_from_json(encoded) == display
    assert display_from_json({"$type": "FromTheFuture", "x": 1}).startswith("[FromTheFuture]")
    assert display_from_json({"$type": "FileDiff", "nonsense": 1}) == "[FileDiff] (saved by another version)"


async def test_each_line_damaged_in_turn_costs_that_record_only(gemini_server, make_session, root, home) -> None:
    for name in "abc":
        (root / name).write_text(name.upper())
    gemini_server.script(reply(text("Reading a."), call("read_note", name="a")), reply(text("It says A.")),
                         reply(text("Plain answer.")),
                         reply(text("Reading b."), call("read_note", name="b")),
                         reply(text("And c."), call("read_note", name="c")), reply(text("B and C.")),
                         reply(text("Last answer.")))
    session = make_session()
    for prompt in ("read a", "what now", "read b and c", "bye"):
        await session.send(prompt)
    path = session.state.recorder.writer.path
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) > 12
    records = [json.loads(line) for line in lines[1:-1]]
    shown = ("prompt", "answer", "call", "notice", "compressed")

    def entries(data: dict) -> list[str]:
        return [json.dumps(c, sort_keys=True) for c in data["contents"]]

    for index in range(len(lines) - 1):
        damaged = list(lines)
        damaged[index] = lines[index][: len(lines[index]) // 2] + b"#damaged"
        target = path.with_name(path.name)  # the name is the session's: a damaged header is recovered from it
        target.write_bytes(b"\n".join(damaged))
        loaded = read_session(target)
        assert len(loaded.problems) == 1, (index, loaded.problems)
        assert "damaged" in loaded.problems[0] and "Everything else was loaded" in loaded.problems[0]
        assert loaded.id == session.session_id[:8] if index == 0 else session.session_id
        kept = [r for number, r in enumerate(records, 1) if number != index]
        assert [(e.kind, e.data) for e in loaded.transcript] == [
            (r["kind"], {k: v for k, v in r.items() if k != "kind"}) for r in kept if r["kind"] in shown]
        # every entry of every other history record is in the loaded history, in order
        got = [json.dumps(c, sort_keys=True) for c in contents_to_json(loaded.history)]
        final = [json.dumps(c, sort_keys=True) for c in contents_to_json(session.history)]
        lost = entries(records[index - 1]) if index and records[index - 1]["kind"] == "history" else []
        assert [entry for entry in final if entry not in lost] == [entry for entry in got if entry in final]
        conversation = Conversation()
        conversation.load(loaded.history)  # what a resume sends: valid, every call answered
        calls = {p.id for c in conversation for p in c.parts if isinstance(p, FunctionCall)}
        answered = {p.id for c in conversation for p in c.parts if isinstance(p, FunctionResponse)}
        assert calls == answered

    # one notice when a damaged file is resumed, and the conversation goes on from everything else
    damaged = list(lines)
    damaged[3] = b"{ hand edited"
    path.write_bytes(b"\n".join(damaged))
    resumed = make_session()
    resumed.saved.resume("latest")
    assert len([n for n in resumed.notices if "damaged" in n.message]) == 1
    gemini_server.script(reply(text("Still here.")))
    await resumed.send("more")
    sent = [part.get("text") for c in gemini_server.requests[-1].contents for part in c["parts"]]
    assert "bye" in sent and "Last answer." in sent and sent[-1] == "more"


def usage(prompt: int, candidates: int) -> dict[str, int]:
    return {"promptTokenCount": prompt, "candidatesTokenCount": candidates, "totalTokenCount": prompt + candidates}


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


@pytest.mark.parametrize("record", [{"kind": "usage", "model": "m", "prompt": -1, "candidates": 0, "total": 0},
                                    {"kind": "usage", "model": "m", "prompt": "x", "candidates": 0, "total": 0},
                                    {"kind": "usage", "model": "m", "prompt": 5}])
def test_a_damaged_usage_record_costs_only_itself(record: dict[str, object], tmp_path: Path) -> None:
    from gemini_tui.core.persistence.records import LoadedSession, apply_record

    loaded = LoadedSession("id", "p", 0.0, "/", "m")
    apply_record(loaded, {"kind": "usage", "model": "m", "prompt": 7, "candidates": 1, "total": 8})
    with pytest.raises((ValueError, KeyError, TypeError)):
        apply_record(loaded, record)
    assert (loaded.tokens_spent, loaded.context_tokens) == (8, 8)
