"""The session store: torn and damaged records, foreign files, bookmarks forking a session, displays and usage
records round trip."""

from __future__ import annotations

import json
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
from gemini_tui.core.persistence.store import read_session
from gemini_tui.core.session.conversation import Conversation
from tests.core.session.test_autosave import store_of, two_turns
from tests.fakes.gemini_server import call, reply, text


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
