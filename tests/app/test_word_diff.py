"""Changes inside a line: generated line pairs, each range checked against what really differs."""

from __future__ import annotations

import random
import string

from gemini_tui.app.diff.word_diff import common_affixes, word_diff

ALPHABET = string.ascii_letters + string.digits + " _.,:;(){}[]\"'=+-*/\t"


def outside(text: str, ranges: tuple[tuple[int, int], ...]) -> str:
    kept, at = [], 0
    for start, end in ranges:
        kept.append(text[at:start])
        at = max(at, end)
    kept.append(text[at:])
    return "".join(kept)


def is_subsequence(small: str, big: str) -> bool:
    it = iter(big)
    return all(char in it for char in small)


def mutate(rng: random.Random, line: str) -> str:
    for _ in range(rng.randint(1, 3)):
        at = rng.randint(0, len(line))
        match rng.choice(("insert", "delete", "replace")):
            case "insert":
                line = line[:at] + "".join(rng.choices(ALPHABET, k=rng.randint(1, 8))) + line[at:]
            case "delete":
                line = line[:at] + line[at + rng.randint(1, 8):]
            case _:
                line = line[:at] + "".join(rng.choices(ALPHABET, k=rng.randint(1, 8))) + line[at + 3:]
    return line


def test_generated_pairs_mark_every_difference() -> None:
    rng = random.Random(14)
    for _ in range(600):
        old = "".join(rng.choices(ALPHABET, k=rng.choice((0, 5, 40, 300, 3000))))
        new = mutate(rng, old)
        diff = word_diff(old, new)
        if old == new:
            assert diff.old == () and diff.new == ()
            continue
        assert diff.old or diff.new, (old, new)
        for text, ranges in ((old, diff.old), (new, diff.new)):
            previous_end = -1
            for start, end in ranges:
                assert 0 <= start <= end <= len(text)
                assert start > previous_end or (start == end == 0)
                previous_end = end
        # what is left unmarked on one side is there, in order, on the other: nothing changed goes unmarked
        assert is_subsequence(outside(old, diff.old), new) or diff.old == ((0, 0),)
        assert is_subsequence(outside(new, diff.new), old) or diff.new == ((0, 0),)


def test_one_change_deep_in_a_minified_line_is_found_where_it_is() -> None:
    rng = random.Random(6000)
    for _ in range(50):
        line = "".join(rng.choices(string.ascii_lowercase + ",:{}", k=rng.randint(5000, 20000)))
        at = rng.randint(0, len(line) - 1)
        changed = line[:at] + ("X" if line[at] != "X" else "Y") + line[at + 1:]
        diff = word_diff(line, changed)
        (start, end), = diff.new
        assert start <= at < end and end - start <= 81  # the word around it at most, never the whole line


def test_a_word_that_grows_is_highlighted_whole() -> None:
    diff = word_diff("total = count(items)", "total = counter(items)")
    assert [("total = counter(items)"[s:e]) for s, e in diff.new] == ["counter"]


def test_unrelated_lines_get_no_word_highlight_but_a_start() -> None:
    diff = word_diff("import os", "return value * 2 + offset")
    assert diff.old == ((0, 0),) and diff.new == ((0, 0),) and diff.first_column == (0, 0)


def test_common_affixes_do_not_overlap() -> None:
    rng = random.Random(3)
    for _ in range(300):
        a = "".join(rng.choices("ab", k=rng.randint(0, 600)))
        b = "".join(rng.choices("ab", k=rng.randint(0, 600)))
        prefix, suffix = common_affixes(a, b)
        assert prefix + suffix <= min(len(a), len(b))
        assert a[:prefix] == b[:prefix] and a[len(a) - suffix:] == b[len(b) - suffix:]


def test_a_side_that_only_gained_or_lost_text_has_an_empty_range_at_its_place() -> None:
    """Where text was only inserted (or only deleted), the other side has nothing changed of its own: an empty
    range says where the change is there, so the review can bring that side's place into view too."""
    rng = random.Random(32)
    for _ in range(300):
        line = "".join(rng.choices(ALPHABET, k=rng.choice((20, 300, 6000))))
        at = rng.randint(0, len(line))
        piece = "".join(rng.choices(string.ascii_letters, k=rng.randint(1, 12)))
        longer = line[:at] + piece + line[at:]
        for old, new in ((line, longer), (longer, line)):
            diff = word_diff(old, new)
            grew = len(new) > len(old)
            place, changed = (diff.old, diff.new) if grew else (diff.new, diff.old)
            short, long_ = (old, new) if grew else (new, old)
            assert place and changed, (old, new, diff)
            start, end = changed[0]
            assert end > start, diff
            # the place is where the changed text goes: inside the (word-widened) changed range, after what both
            # sides share
            where = place[0][0]
            assert start <= where <= end and short[:where] == long_[:where], (old, new, diff)
