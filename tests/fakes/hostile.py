"""Generated hostile model replies for the fake Gemini server: bad JSON, wrong types, deep nesting, huge args,
odd finish reasons and usage blocks, HTML bodies, non-JSON `data:` lines, error chunks and stalls.

`hostile_cases(n, seed)` returns (name, Reply) pairs; each reply mixes one or more broken pieces with
well-formed ones, so a reader that throws away a whole chunk for one bad part is caught too."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from tests.fakes.gemini_server import DEFAULT_USAGE, Reply


def _nest(depth: int, leaf: Any, as_list: bool) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value] if as_list else {"a": value}
    return value


def _chunk(parts: list[Any], finish: Any = None, usage: Any = None, **extra: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    chunk: dict[str, Any] = {"candidates": [candidate], **extra}
    if usage is not None:
        chunk["usageMetadata"] = usage
    return chunk


def _good_call(rng: random.Random) -> dict[str, Any]:
    return {"functionCall": {"name": rng.choice(["read_note", "read_file", "list_directory"]),
                             "args": {"name": "a", "path": "."}}}


# each maker returns a list of parts (for one chunk) that contains one malformed thing
def _bad_parts(rng: random.Random) -> tuple[str, list[Any]]:
    makers: list[tuple[str, Callable[[], list[Any]]]] = [
        ("text-int", lambda: [{"text": 5}]),
        ("text-list", lambda: [{"text": ["a", "b"]}]),
        ("text-object", lambda: [{"text": {"x": 1}}]),
        ("thought-string", lambda: [{"text": "thinking", "thought": "yes"}]),
        ("part-string", lambda: ["just a string"]),
        ("part-null", lambda: [None]),
        ("part-number", lambda: [42]),
        ("call-string", lambda: [{"functionCall": "read_file(/etc/passwd)"}]),
        ("call-list", lambda: [{"functionCall": ["read_file"]}]),
        ("call-name-int", lambda: [{"functionCall": {"name": 5, "args": {}}}]),
        ("call-name-empty", lambda: [{"functionCall": {"name": "", "args": {}}}]),
        ("call-name-missing", lambda: [{"functionCall": {"args": {"path": "."}}}]),
        ("call-name-huge", lambda: [{"functionCall": {"name": "x" * 5000, "args": {}}}]),
        ("args-string", lambda: [{"functionCall": {"name": "read_file", "args": '{"path": "a"}'}}]),
        ("args-number", lambda: [{"functionCall": {"name": "read_file", "args": 7}}]),
        ("args-list", lambda: [{"functionCall": {"name": "read_file", "args": ["a"]}}]),
        ("args-bool", lambda: [{"functionCall": {"name": "list_directory", "args": True}}]),
        ("args-deep-dict", lambda: [{"functionCall": {"name": "read_file",
                                                      "args": {"path": _nest(rng.randint(40, 400), "x", False)}}}]),
        ("args-deep-list", lambda: [{"functionCall": {"name": "read_file",
                                                      "args": {"path": _nest(rng.randint(40, 400), 1, True)}}}]),
        ("args-huge", lambda: [{"functionCall": {"name": "read_file", "args": {"path": "a" * (5 * 1024 * 1024)}}}]),
        ("args-big-ok", lambda: [{"functionCall": {"name": "read_note", "args": {"name": "b" * 200_000}}}]),
        ("args-wrong-field-types", lambda: [{"functionCall": {"name": "read_file",
                                                              "args": {"path": 5, "offset": "x", "limit": []}}}]),
        ("call-id-int", lambda: [{"functionCall": {"id": 5, "name": "read_note", "args": {"name": "a"}}}]),
        ("unknown-tool", lambda: [{"functionCall": {"name": "no_such_tool", "args": {}}}]),
        ("signature-bad", lambda: [{"text": "hi", "thoughtSignature": "%%%not base64%%%"}]),
        ("signature-int", lambda: [{"text": "hi", "thoughtSignature": 12}]),
        ("unknown-part", lambda: [{"executableCode": {"code": "print(1)"}}, {"weird": True}]),
    ]
    name, make = rng.choice(makers)
    return name, make()


def _bad_usage(rng: random.Random) -> tuple[str, Any]:
    return rng.choice([
        ("usage-string", "lots"),
        ("usage-negative", {"promptTokenCount": -5, "totalTokenCount": -1}),
        ("usage-float", {"promptTokenCount": 1.5, "candidatesTokenCount": "10"}),
        ("usage-nested", {"promptTokenCount": {"n": 1}, "totalTokenCount": [1]}),
        ("usage-list", [1, 2, 3]),
        ("usage-deep", _nest(300, 1, False)),
    ])


def _bad_finish(rng: random.Random) -> tuple[str, Any]:
    return rng.choice([("finish-unknown", "SOMETHING_NEW"), ("finish-int", 5), ("finish-empty", ""),
                       ("finish-object", {"reason": "STOP"}), ("finish-malformed-call", "MALFORMED_FUNCTION_CALL"),
                       ("finish-long", "X" * 1000)])


def _good_text(rng: random.Random) -> dict[str, Any]:
    return {"text": rng.choice(["Looking.", "Here it is.", "Done.", "One moment. "])}


def _structured_reply(rng: random.Random) -> tuple[str, Reply]:
    """A stream of JSON chunks with malformed parts, usage and finish reasons mixed in."""
    names: list[str] = []
    chunks: list[dict[str, Any]] = []
    for _ in range(rng.randint(1, 3)):
        parts: list[Any] = []
        if rng.random() < 0.5:
            parts.append(_good_text(rng))
        name, bad = _bad_parts(rng)
        names.append(name)
        parts.extend(bad)
        if rng.random() < 0.3:
            parts.append(_good_call(rng))
        chunks.append(_chunk(parts))
    finish: Any = "STOP"
    usage: Any = DEFAULT_USAGE
    if rng.random() < 0.4:
        name, finish = _bad_finish(rng)
        names.append(name)
    if rng.random() < 0.4:
        name, usage = _bad_usage(rng)
        names.append(name)
    last = chunks[-1]["candidates"][0]
    last["finishReason"] = finish
    chunks[-1]["usageMetadata"] = usage
    return "+".join(names), Reply(chunks=chunks)


def _shape_reply(rng: random.Random) -> tuple[str, Reply]:
    """Chunks whose outer shape is wrong."""
    name, chunk = rng.choice([
        ("candidates-string", {"candidates": "none"}),
        ("candidates-number", {"candidates": 3}),
        ("candidate-string", {"candidates": ["x"]}),
        ("content-list", {"candidates": [{"content": [1, 2], "finishReason": "STOP"}]}),
        ("parts-object", {"candidates": [{"content": {"parts": {"text": "x"}}, "finishReason": "STOP"}]}),
        ("chunk-list", [1, 2, 3]),
        ("chunk-string", "hello"),
        ("chunk-null", None),
        ("empty-object", {}),
        ("feedback-odd", {"promptFeedback": {"blockReason": 5}, "candidates": [
            {"content": {"parts": [{"text": "fine"}]}, "finishReason": "STOP"}]}),
        ("deep-chunk", {"candidates": [{"content": {"parts": [{"text": "x"}]}, "finishReason": "STOP"}],
                        "extra": _nest(rng.randint(100, 600), 0, rng.random() < 0.5)}),
    ])
    return name, Reply(raw_events=[json.dumps(chunk)])


def _raw_reply(rng: random.Random) -> tuple[str, Reply]:
    """Bytes that are not a proper response at all."""
    good = json.dumps(_chunk([{"text": "Partial answer. "}]))
    choice = rng.randrange(8)
    if choice == 0:
        return "html-body", Reply(body=b"<html><body><h1>502 Bad Gateway</h1>proxy says no</body></html>")
    if choice == 1:
        return "html-body-with-braces", Reply(body=b"<html><script>var a = {b: 1};</script></html>")
    if choice == 2:
        return "data-not-json", Reply(raw_events=[good, "this is not json"])
    if choice == 3:
        return "data-truncated", Reply(raw_events=[good, '{"candidates": [{"content": {"parts": [{"te'])
    if choice == 4:
        return "data-single-quotes", Reply(raw_events=["{'candidates': []}"])
    if choice == 5:
        depth = rng.choice([2000, 20000])
        return f"data-nested-{depth}", Reply(raw_events=["[" * depth + "]" * depth])
    if choice == 6:
        return "error-chunk", Reply(raw_events=[good, json.dumps({"error": {"code": 500, "message": "boom",
                                                                           "status": "INTERNAL"}})])
    return "empty-body", Reply(body=b"", content_type="text/event-stream")


def stall_reply(after: int, seconds: float) -> Reply:
    """A stream that sends `after` chunks, then nothing for `seconds`, then the rest."""
    chunks = [_chunk([{"text": "Start. "}]), _chunk([{"text": "end."}], finish="STOP", usage=DEFAULT_USAGE)]
    return Reply(chunks=chunks, stall_after=after, stall_s=seconds)


def hostile_cases(count: int, seed: int = 11) -> list[tuple[str, Reply]]:
    rng = random.Random(seed)
    cases: list[tuple[str, Reply]] = []
    for index in range(count):
        kind = index % 4
        make = (_structured_reply, _structured_reply, _shape_reply, _raw_reply)[kind]
        name, hostile = make(rng)
        cases.append((f"{index:03d}-{name}", hostile))
    return cases
