"""Conversation: its rules hold after any sequence of changes (generated), and it round-trips through JSON."""

from __future__ import annotations

import random

import pytest

from gemini_tui.core.ground.model_api import Content, FunctionCall, FunctionResponse, ThoughtPart
from gemini_tui.core.ground.parts import TextPart
from gemini_tui.core.session.conversation import Conversation


def check_rules(conversation: Conversation) -> None:
    """Roles alternate; no entry is empty; every call of a model entry is answered exactly once by the next
    entry (only the last entry may hold calls still pending); every response answers a call of the entry before."""
    contents = list(conversation)
    for index, content in enumerate(contents):
        assert content.parts, f"entry {index} is empty"
        if index:
            assert content.role != contents[index - 1].role, f"entries {index - 1} and {index} share a role"
        responses = [p for p in content.parts if isinstance(p, FunctionResponse)]
        if content.role == "model":
            assert not responses
            calls = [p.id for p in content.parts if isinstance(p, FunctionCall)]
            if index + 1 < len(contents):
                answered = [p.id for p in contents[index + 1].parts if isinstance(p, FunctionResponse)]
                assert answered == calls, f"calls {calls} of entry {index} answered by {answered}"
        elif responses:
            before = contents[index - 1] if index else None
            assert before is not None and before.role == "model"
            assert [r.id for r in responses] == [p.id for p in before.parts if isinstance(p, FunctionCall)]


def random_parts(rng: random.Random, counter: list[int], calls: bool) -> list:
    parts: list = []
    for _ in range(rng.randint(0, 3)):
        kind = rng.choice(["text", "thought", "call"] if calls else ["text"])
        counter[0] += 1
        if kind == "text":
            parts.append(TextPart(f"t{counter[0]}"))
        elif kind == "thought":
            parts.append(ThoughtPart(f"th{counter[0]}"))
        else:
            parts.append(FunctionCall(f"c{counter[0]}", "tool", {"n": counter[0]}))
    return parts


def random_step(rng: random.Random, conversation: Conversation, counter: list[int]) -> None:
    op = rng.choice(["user", "model", "responses", "partial", "pending", "truncate", "replace", "clear", "load"])
    match op:
        case "user":
            conversation.append_user(random_parts(rng, counter, calls=False))
        case "model":
            conversation.append_model(random_parts(rng, counter, calls=True))
        case "responses":
            calls = conversation.pending_calls()
            # some answered, some forgotten, some strays, in any order
            responses = [FunctionResponse(c.id, c.name, {"output": "ok"}) for c in calls if rng.random() < 0.7]
            responses += [FunctionResponse(f"stray{counter[0]}", "tool", {"output": "?"})] * rng.randint(0, 1)
            rng.shuffle(responses)
            conversation.append_responses(responses)
        case "partial":
            conversation.keep_partial(random_parts(rng, counter, calls=True))
        case "pending":
            conversation.answer_pending("stopped")
        case "truncate":
            conversation.truncate_to(rng.randint(0, len(conversation)))
        case "replace":
            start = rng.randint(0, len(conversation))
            stop = rng.randint(start, len(conversation))
            summary = [Content("user", [TextPart("summary")]), Content("model", [TextPart("ok")])]
            conversation.replace_range(start, stop, summary[: rng.randint(0, 2)])
        case "clear":
            if rng.random() < 0.2:
                conversation.clear()
        case "load":
            # anything, even an invalid history (a hand-edited save), comes out valid
            raw = [Content(rng.choice(["user", "model"]), random_parts(rng, counter, calls=True))
                   for _ in range(rng.randint(0, 4))]
            conversation.load(raw)


@pytest.mark.parametrize("seed", range(300))
def test_rules_hold_after_any_sequence_of_changes(seed: int) -> None:
    rng = random.Random(seed)
    conversation = Conversation()
    counter = [0]
    for _ in range(40):
        revision = conversation.revision
        random_step(rng, conversation, counter)
        check_rules(conversation)
        assert conversation.revision >= revision
    copy = Conversation.from_json(conversation.to_json())
    assert copy == conversation
    check_rules(copy)


def test_a_prompt_after_unanswered_calls_answers_them_first() -> None:
    conversation = Conversation()
    conversation.append_user([TextPart("do it")])
    conversation.append_model([TextPart("ok"), FunctionCall("a", "read", {}), FunctionCall("b", "read", {})])
    conversation.append_user([TextPart("never mind")])
    assert [c.role for c in conversation] == ["user", "model", "user"]
    last = conversation[-1].parts
    assert [p.id for p in last if isinstance(p, FunctionResponse)] == ["a", "b"]
    assert "error" in last[0].response and last[-1] == TextPart("never mind")


def test_a_prompt_after_an_unanswered_prompt_joins_it() -> None:
    conversation = Conversation()
    conversation.append_user([TextPart("first")])
    conversation.append_user([TextPart("second")])
    assert conversation == [Content("user", [TextPart("first"), TextPart("second")])]


def test_partial_turn_keeps_text_and_drops_calls() -> None:
    conversation = Conversation()
    conversation.append_user([TextPart("go")])
    conversation.keep_partial([TextPart("half "), FunctionCall("x", "read", {}), ThoughtPart("hm")])
    assert conversation[-1] == Content("model", [TextPart("half ")])
    assert conversation.pending_calls() == []


def test_responses_come_in_the_calls_order_and_missing_ones_are_answered() -> None:
    conversation = Conversation()
    conversation.append_user([TextPart("go")])
    conversation.append_model([FunctionCall("a", "t", {}), FunctionCall("b", "t", {})])
    conversation.append_responses([FunctionResponse("b", "t", {"output": "B"}), FunctionResponse("z", "t", {})])
    responses = conversation[-1].parts
    assert [p.id for p in responses] == ["a", "b"]
    assert "error" in responses[0].response and responses[1].response == {"output": "B"}


def test_a_snapshot_does_not_change_when_the_conversation_does() -> None:
    conversation = Conversation()
    conversation.append_user([TextPart("one")])
    snapshot = conversation.snapshot()
    conversation.append_user([TextPart("two")])
    assert snapshot[0].parts == [TextPart("one")]
    assert conversation[0].parts == [TextPart("one"), TextPart("two")]


def test_truncate_between_a_call_and_its_response_answers_the_call() -> None:
    conversation = Conversation()
    conversation.append_user([TextPart("go")])
    conversation.append_model([FunctionCall("a", "t", {})])
    conversation.append_responses([FunctionResponse("a", "t", {"output": "A"})])
    conversation.append_model([TextPart("done")])
    conversation.truncate_to(2)
    assert len(conversation) == 3 and "error" in conversation[-1].parts[0].response
    with pytest.raises(IndexError):
        conversation.truncate_to(9)
