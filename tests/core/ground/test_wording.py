"""Message wording: counts agree with their nouns, and sentences join with exactly one stop between them."""

from __future__ import annotations

import itertools
import re

import pytest

from gemini_tui.core.ground.wording import counted, sentence, sentences, there_are


@pytest.mark.parametrize("n", range(0, 4))
def test_a_count_agrees_with_its_noun(n: int) -> None:
    said = there_are(n, "session")
    assert "there are 1 " not in said and "there is 0" not in said
    assert said == {0: "there are no sessions", 1: "there is 1 session"}.get(n, f"there are {n} sessions")
    assert counted(n, "match", "matches").endswith("match" if n == 1 else "matches")


ENDS = ["", ".", "..", "!", "?", ":", "…"]


@pytest.mark.parametrize(("first_end", "second_end"), list(itertools.product(ENDS, ENDS)))
def test_sentences_never_double_or_drop_a_stop(first_end: str, second_end: str) -> None:
    joined = sentences(f"the server said: see the docs for more information{first_end}", f"Run it again{second_end}")
    assert not re.search(r"(?<!\.)\.\.(?!\.)", joined)  # never "information.. Run"
    assert re.search(r"information[.!?:…] Run", joined)  # never "information Run"
    assert joined[-1] in ".!?:…"
    assert sentence("   ") == ""
