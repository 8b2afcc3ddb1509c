"""Loop detection: repeated calls and repeated text stop a prompt; ordinary answers and code do not."""

from __future__ import annotations

from gemini_tui.core.loop_detection import CALL_REPEAT_LIMIT, LoopDetector
from gemini_tui.core.models.base import FunctionCall


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
