"""One model request's words of its own: why an answer was cut short, for every finish reason the model gives
(the stream itself is driven through whole turns in test_turn_loop and test_empty_reply)."""

from __future__ import annotations

import pytest

from gemini_tui.core.session.model_turn import cut_short_message


@pytest.mark.parametrize(("finish", "why"), [
    ("MAX_TOKENS", "output token limit"),
    ("SAFETY", "safety filters"),
    ("RECITATION", "recite a source"),
    ("MALFORMED_FUNCTION_CALL", "malformed function call"),
    ("SOMETHING_NEW", "stopped early"),
])
def test_a_cut_short_answer_says_why_and_what_to_do(finish: str, why: str) -> None:
    message = cut_short_message(finish)
    assert why in message and f"(finish reason {finish})" in message and "Ask to continue" in message
