"""Loop detection: repeated calls and repeated text stop a prompt; ordinary answers and code do not."""

from __future__ import annotations

from gemini_tui.core.ground.model_api import FunctionCall
from gemini_tui.core.session.loop_detection import CALL_REPEAT_LIMIT, LoopDetector


def test_same_call_in_a_row() -> None:
    detector = LoopDetector()
    same = FunctionCall("1", "read_file", {"path": "/a"})
    assert [detector.check_call(same) for _ in range(CALL_REPEAT_LIMIT - 1)] == [None] * (CALL_REPEAT_LIMIT - 1)
    assert "Loop detected" in (detector.check_call(same) or "")


def test_different_arguments_reset_the_count() -> None:
    detector = LoopDetector()
    for index in range(20):
        assert detector.check_call(FunctionCall(str(index), "read_file", {"path": f"/{index % 2}"})) is None


def test_repeating_sentence_in_small_deltas() -> None:
    detector = LoopDetector()
    sentence = "Let me check that file once more to be sure. "
    results = [detector.check_text(piece) for _ in range(20) for piece in (sentence[:10], sentence[10:])]
    assert any(results)


def test_ordinary_prose_and_repetitive_code_pass() -> None:
    detector = LoopDetector()
    prose = " ".join(f"Sentence number {i} talks about a different topic, item {i * 7}." for i in range(200))
    assert detector.check_text(prose) is None
    code = "```python\n" + "".join("    assert parse('x') == 'x'  # same line again\n" for _ in range(50)) + "```\n"
    assert detector.check_text(code) is None


def test_legitimately_repetitive_answers_pass() -> None:
    """Tables, dividers, quoted and fenced logs, path lists, long lists, refactor summaries (real stdlib names)."""
    from bench.bench_loop_detection import measure

    false_alarms, caught, _ = measure()
    assert false_alarms == []
    late = [(name, chars) for name, chars in caught if chars is None or chars > 2048]
    assert late == [] and len(caught) == 200


def test_markdown_structure_resets_the_prose() -> None:
    detector = LoopDetector()
    row = "| same | row | in | a | table |\n"
    assert detector.check_text(row * 200) is None
    assert detector.check_text(("=" * 60 + "\n") * 50) is None
    assert detector.check_text("> quoted line that repeats itself exactly\n" * 60) is None
    assert detector.check_text("1. the same numbered item again and again\n" * 60) is None
    # ...but prose after them is still watched
    assert detector.check_text("I will check the configuration once more now. " * 8) is not None


def test_similar_sentences_that_differ_are_not_a_period() -> None:
    detector = LoopDetector()
    text = " ".join(f"Updated module_{i}.py to use the new logger from core.logging." for i in range(200))
    assert detector.check_text(text) is None


def test_disabled_and_keep_going() -> None:
    off = LoopDetector(enabled=False)
    assert off.check_text("Same words again and again, forever. " * 100) is None
    same = FunctionCall("1", "read_file", {"path": "/a"})
    assert all(off.check_call(same) is None for _ in range(20))
    detector = LoopDetector()
    assert detector.check_text("Same words again and again, forever. " * 10) is not None
    detector.keep_going()
    assert detector.check_text("Same words again and again, forever. " * 100) is None
    assert [detector.check_call(same) for _ in range(CALL_REPEAT_LIMIT)][-1] is not None  # calls still watched
