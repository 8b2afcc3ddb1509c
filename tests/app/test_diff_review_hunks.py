"""Hunks of a proposed edit: grouping like unified diffs, applying only accepted hunks, the model's feedback."""

from __future__ import annotations

import difflib
import itertools
import random

from gemini_tui.app.diff.hunks import (
    LineKind,
    apply_hunks,
    compute_hunks,
    hunks_of,
    parse_unified,
    rejection_feedback,
)


def numbered(n: int) -> list[str]:
    return [f"line {i}\n" for i in range(1, n + 1)]


def test_hunks_match_unified_diff_headers() -> None:
    old = numbered(60)
    new = list(old)
    new[4] = "changed 5\n"
    new[40:43] = ["x\n"]
    new.insert(55, "inserted\n")
    hunks = compute_hunks("".join(old), "".join(new))
    headers = [line.rstrip("\n") for line in difflib.unified_diff(old, new) if line.startswith("@@")]
    assert [hunk.header for hunk in hunks] == headers
    assert [hunk.changed_range for hunk in hunks] == ["line 5", "lines 41-43", "inserted after line 57"]
    assert hunks[1].removed == 3 and hunks[1].added == 1


def test_line_numbers_on_both_sides() -> None:
    hunk = compute_hunks("a\nb\nc\n", "a\nB\nc\nd\n")[0]
    rows = [(line.kind, line.old_no, line.new_no, line.text) for line in hunk.lines]
    assert rows == [
        (LineKind.context, 1, 1, "a"),
        (LineKind.removed, 2, None, "b"),
        (LineKind.added, None, 2, "B"),
        (LineKind.context, 3, 3, "c"),
        (LineKind.added, None, 4, "d"),
    ]


def test_every_subset_of_hunks_applies_exactly() -> None:
    old = numbered(80)
    new = list(old)
    new[2] = "two\n"
    del new[20:25]
    new[50:50] = ["a\n", "b\n"]
    new[-1] = "last without newline"
    original, proposed = "".join(old), "".join(new)
    hunks = compute_hunks(original, proposed)
    assert len(hunks) == 4
    assert apply_hunks(original, proposed, hunks, {0, 1, 2, 3}) == proposed
    assert apply_hunks(original, proposed, hunks, set()) == original
    for size in range(1, 4):
        for accepted in itertools.combinations(range(4), size):
            result = apply_hunks(original, proposed, hunks, set(accepted))
            # applying the remaining hunks on top of a partial result reaches the proposal again
            rest = compute_hunks(result, proposed)
            assert len(rest) == 4 - size
            assert apply_hunks(result, proposed, rest, {h.index for h in rest}) == proposed
    only_second = apply_hunks(original, proposed, hunks, {1})
    assert "line 21\n" not in only_second and "two\n" not in only_second and only_second.endswith("line 80\n")


def test_random_edits_roundtrip() -> None:
    rng = random.Random(7)
    for _ in range(50):
        old = [f"{rng.randint(0, 30)}\n" for _ in range(rng.randint(0, 40))]
        new = [line for line in old if rng.random() > 0.2]
        for _ in range(rng.randint(0, 5)):
            new.insert(rng.randint(0, len(new)), f"new {rng.random()}\n")
        original, proposed = "".join(old), "".join(new)
        hunks = compute_hunks(original, proposed)
        assert apply_hunks(original, proposed, hunks, {h.index for h in hunks}) == proposed
        assert apply_hunks(original, proposed, hunks, ()) == original


def test_new_file_and_missing_final_newline() -> None:
    hunks = compute_hunks("", "a\nb")
    assert len(hunks) == 1 and hunks[0].header == "@@ -0,0 +1,2 @@"
    assert hunks[0].changed_range == "inserted at the start"
    assert hunks[0].lines[-1].no_newline
    assert compute_hunks("same\n", "same\n") == ()


def test_feedback_names_rejected_hunks() -> None:
    old = numbered(60)
    new = list(old)
    new[4] = "x\n"
    new[39:52] = ["y\n"]
    hunks = compute_hunks("".join(old), "".join(new))
    text = rejection_feedback(hunks, {1}, "/r/a.py")
    assert text.startswith("The user rejected hunk(s) 2 (lines 40-52) of the proposed change to /r/a.py")
    assert "not changed" in rejection_feedback(hunks, {0, 1}, "/r/a.py")


def test_parsed_unified_diff_equals_recomputed_hunks() -> None:
    from gemini_tui.core.ground.display import FileDiff

    old = numbered(200)
    new = list(old)
    new[3] = "changed\n"
    del new[50:53]
    new[120:120] = ["a\n", "b\n"]
    new[-1] = "no newline"
    original, proposed = "".join(old), "".join(new)
    diff = FileDiff.between("/r/a.txt", original, proposed)
    parsed = parse_unified(diff.diff)
    assert parsed == compute_hunks(original, proposed)
    assert hunks_of(original, proposed, diff.diff) == parsed
    created = FileDiff.between("/r/n.txt", "", "x\ny\n")
    assert parse_unified(created.diff) == compute_hunks("", "x\ny\n")


def test_stale_or_broken_diff_text_falls_back_to_diffing() -> None:
    from gemini_tui.core.ground.display import FileDiff

    stale = FileDiff.between("/r/a.txt", "a\nb\n", "a\nc\n").diff
    hunks = hunks_of("x\nb\n", "x\nc\n", stale)  # same shape, other text: must not be trusted
    assert hunks == compute_hunks("x\nb\n", "x\nc\n")
    assert hunks_of("a\n", "b\n", "not a diff\n@@ -1 +1 @@\n?odd\n") == compute_hunks("a\n", "b\n")
