"""Generated hostile Unicode through every place text leaves the process: nothing raises, stored text round-trips.

The text (lone surrogates, NUL, C0 and C1 controls, direction marks, astral characters) is streamed by the real
fake Gemini server, cut into chunks at any UTF-16 code unit (so a surrogate pair may arrive in two chunks), as
model text, a thought, and a function call's argument names and values; it is also the prompt."""

from __future__ import annotations

import io
import itertools
import json
import logging
import os
import subprocess
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from gemini_tui.cli.headless import HeadlessPrinter, OutputFormat
from gemini_tui.core.ground import debug_log
from gemini_tui.core.ground.model_api import FunctionCall, TextPart
from gemini_tui.core.ground.terminal_text import TerminalTextStream, clean_terminal_text
from gemini_tui.core.ground.text_boundary import json_text, settle, shown_text, utf8_bytes
from gemini_tui.core.persistence.listing import describe
from gemini_tui.core.persistence.shadow_repo import ShadowRepo
from gemini_tui.core.persistence.store import SessionStore, read_session
from tests.fakes.gemini_server import DEFAULT_USAGE, Reply

SPECIAL = ["\ud800", "\udbff", "\udc80", "\udfff", "\x00", "\x01", "\x1b", "\x7f", "\x85", "\x9b", "\u200f",
           "\u202e", "\u2066", "\ufeff", "\U0001f600", "\U00010348", "\ud83d\ude00", "é", "\n", "\r"]
hostile = st.lists(st.one_of(st.sampled_from(SPECIAL), st.characters(codec=None, categories=None)),
                   max_size=24).map("".join)


def _units(text: str) -> list[str]:
    """`text` as UTF-16 code units, each its own string (a lone surrogate where an astral character was)."""
    data = text.encode("utf-16-le", "surrogatepass")
    return [data[i:i + 2].decode("utf-16-le", "surrogatepass") for i in range(0, len(data), 2)]


def _pieces(text: str, cuts: list[int]) -> list[str]:
    units = _units(text)
    points = sorted({min(c, len(units)) for c in cuts} | {0, len(units)})
    return ["".join(units[a:b]) for a, b in itertools.pairwise(points)] or [""]


def _chunk(parts: list[dict[str, object]], last: bool = False) -> str:
    candidate: dict[str, object] = {"content": {"role": "model", "parts": parts}, "index": 0}
    chunk: dict[str, object] = {"candidates": [candidate]}
    if last:
        candidate["finishReason"] = "STOP"
        chunk["usageMetadata"] = DEFAULT_USAGE
    return json.dumps(chunk)  # ASCII: every surrogate, paired or not, as its \u escape, as JSON allows


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.generate])  # a shrink through server runs takes minutes
@given(answer=hostile, musing=hostile, key=hostile, value=hostile, prompt=hostile,
       cuts=st.lists(st.integers(0, 60), max_size=6), form=st.sampled_from(list(OutputFormat)))
async def test_hostile_text_through_the_stream_output_and_session_file(
        gemini_server, make_session, home: Path, answer: str, musing: str, key: str, value: str, prompt: str,
        cuts: list[int], form: OutputFormat) -> None:
    prompt = "p" + prompt  # an empty prompt is refused before it is sent
    events = [_chunk([{"text": musing or "m", "thought": True}])]
    events += [_chunk([{"text": piece}]) for piece in _pieces("a" + answer, cuts)]
    events.append(_chunk([{"functionCall": {"name": "read_note", "args": {"name": "n" + value, key or "k": value}}}],
                         last=True))
    gemini_server.script(Reply(raw_events=events), Reply(raw_events=[_chunk([{"text": "b" + answer}], last=True)]))
    session = make_session()
    out, err = io.StringIO(), io.StringIO()
    await HeadlessPrinter(form, out, err).run(session, prompt)
    await session.close()

    printed = out.getvalue()
    printed.encode("utf-8")  # what reaches stdout and stderr is always encodable
    err.getvalue().encode("utf-8")
    if form is OutputFormat.stream_json:
        lines = [json.loads(line) for line in printed.splitlines()]
        deltas = [e["content"] for e in lines if e["type"] == "message" and e["role"] == "assistant"]
        assert "".join(deltas) == clean_terminal_text("a" + answer) + clean_terminal_text("b" + answer)
    elif form is OutputFormat.json:
        assert json.loads(printed)["response"] == clean_terminal_text("b" + answer)

    # the session file holds what the model said, exactly (settled: a pair is its character)
    assert session.state.recorder is not None
    loaded = read_session(session.state.recorder.writer.path)
    assert loaded.problems == []
    parts = [part for content in loaded.history for part in content.parts]
    texts = [part.text for part in parts if isinstance(part, TextPart)]
    assert settle(prompt) in texts and settle("a" + answer) in texts and settle("b" + answer) in texts
    calls = [part for part in parts if isinstance(part, FunctionCall)]
    assert calls and calls[0].args == {"name": settle("n" + value), settle(key or "k"): settle(value)}
    answers = [entry.data["text"] for entry in loaded.transcript if entry.kind == "answer"]
    assert settle("".join(answers)) == settle("a" + answer + "b" + answer)
    assert [e.data["text"] for e in loaded.transcript if e.kind == "prompt"] == [settle(prompt)]
    for summary in SessionStore(Path(session.state.recorder.writer.path).parent.parent).summaries():  # --list-sessions
        describe(summary).encode("utf-8")


@settings(max_examples=200, deadline=None)
@given(text=hostile, cuts=st.lists(st.integers(0, 40), max_size=8))
def test_display_text_is_always_encodable_and_the_stream_cleans_as_the_whole(text: str, cuts: list[int]) -> None:
    # widgets and the headless text output show text through these two
    whole = clean_terminal_text(text)
    whole.encode("utf-8")
    stream = TerminalTextStream()
    assert "".join(stream.feed(piece) for piece in _pieces(text, cuts)) + stream.flush() == whole
    shown_text(text).encode("utf-8")
    assert shown_text(text) == text or any("\ud800" <= c <= "\udfff" for c in text)


@settings(max_examples=200, deadline=None)
@given(value=st.recursive(hostile | st.integers() | st.none(),
                          lambda inner: st.lists(inner, max_size=3) | st.dictionaries(hostile, inner, max_size=3),
                          max_leaves=8))
def test_json_text_is_utf8_and_loads_back_settled(value: object) -> None:
    text = json_text(value)
    loaded = json.loads(text.encode("utf-8"))

    def settled(item: object) -> object:
        if isinstance(item, str):
            return settle(item)
        if isinstance(item, list):
            return [settled(i) for i in item]
        if isinstance(item, dict):
            return {settle(k): settled(v) for k, v in item.items()}
        return item

    assert loaded == settled(value)


@settings(max_examples=40, deadline=None)
@given(text=hostile)
def test_raw_bytes_out_keep_escaped_bytes(text: str) -> None:
    data = utf8_bytes(text)
    data.decode("utf-8", "surrogateescape")
    undecodable = bytes(range(0x80, 0x100)).decode("utf-8", "surrogateescape")
    assert utf8_bytes(undecodable) == bytes(range(0x80, 0x100))


def test_debug_log_writes_hostile_messages(tmp_path: Path) -> None:
    root = logging.getLogger()
    before = list(root.handlers), root.level
    path = debug_log.to_file(tmp_path)
    try:
        errors: list[BaseException] = []
        handler = next(h for h in root.handlers
                       if isinstance(h, logging.FileHandler) and h.baseFilename == str(path))
        handler.handleError = lambda record: errors.append(record)  # type: ignore[method-assign,assignment]
        # straight to the handler: a record that also reached pytest's own log capture would carry the lone
        # surrogate into the report, which a parallel run's worker cannot send back (execnet refuses it)
        for text in SPECIAL:
            handler.handle(logging.LogRecord("hostile", logging.WARNING, __file__, 0, "model said %s", (text,), None))
        handler.flush()
        assert errors == []
        written = path.read_bytes().decode("utf-8")
        assert "\\ud800" in written and "\U0001f600" in written
    finally:
        for handler in list(root.handlers):
            if handler not in before[0]:
                root.removeHandler(handler)
                handler.close()
        root.setLevel(before[1])


def test_checkpoint_message_and_modes_with_undecodable_names(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    name = os.fsdecode(b"odd-\xff-name")  # carries \udcff
    (work / name).write_text("x")
    os.chmod(work / name, 0o600)
    repo = ShadowRepo(work, tmp_path / "shadow")
    commit = repo.snapshot({"tool": "write_file", "description": "edit \ud800 and \x00 \u202e" + name})
    assert repo.modes_of(commit) == {name: 0o600}
    body = subprocess.run(["git", f"--git-dir={tmp_path / 'shadow'}", "log", "-1", "--format=%B", commit],
                          capture_output=True, check=True).stdout
    assert json.loads(body.decode("utf-8"))["description"] == "edit \ud800 and \x00 \u202e" + name


def test_clipboard_gets_encodable_text(root: Path) -> None:
    from gemini_tui.app.main import GeminiApp

    app = GeminiApp(lambda: None, root)  # type: ignore[arg-type,return-value]
    app.copy_to_clipboard("a\ud800b\U0001f600")
    assert app.clipboard == "a\ufffdb\U0001f600"
    app.clipboard.encode("utf-8")
