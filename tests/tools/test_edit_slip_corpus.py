"""A fixed sample of the slipped-edit corpus (bench/edit_corpus.py) through the real replace tool: every kind
of slip, no wrong edit, and at least a floor of exact edits per kind; the model tier, answering the true text
or wrong text, adds no wrong edit. The whole corpus (550 cases) is `python -m bench edit_correction`."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from bench.bench_edit_correction import TrueFixer, WrongFixer, run, table, totals
from bench.edit_corpus import KINDS, EditCase, corpus

PER_KIND = 8
SEED = 515
# the share of a kind's cases that must be applied exactly (or refused, where only a refusal is right)
FLOORS = {"whitespace": 0.85, "indentation": 0.85, "escapes": 0.85, "crlf": 0.85, "lookalikes": 0.85,
          "typo": 0.85, "missing_line": 0.6, "extra_line": 0.6, "elision": 0.6, "stale_line": 0.5,
          "duplicate": 0.6}


@pytest.fixture(scope="module")
def sample() -> list[EditCase]:
    return corpus(PER_KIND, SEED, repository=False)  # files that do not change with this repository


def test_the_sample_covers_every_kind(sample: list[EditCase]) -> None:
    assert Counter(case.kind for case in sample) == dict.fromkeys(KINDS, PER_KIND)
    assert any(case.encoding != "utf-8" for case in sample)
    assert any("\r\n" in case.content for case in sample)
    assert any(case.expected is None for case in sample)  # cases only a refusal gets right


def test_no_slip_is_applied_wrongly(sample: list[EditCase], capsys: pytest.CaptureFixture[str]) -> None:
    by_kind = asyncio.run(run(sample))
    with capsys.disabled():
        print("\n" + table(by_kind))
    for kind, counts in by_kind.items():
        assert counts["wrong"] == 0, (kind, counts)
        assert counts["exact"] >= FLOORS[kind] * PER_KIND, (kind, counts)


def test_the_model_tier_adds_no_wrong_edit(sample: list[EditCase]) -> None:
    keyed = {(case.old, case.new): case for case in sample}
    alone = totals(asyncio.run(run(sample)))
    helped = totals(asyncio.run(run(sample, TrueFixer(keyed))))
    misled = totals(asyncio.run(run(sample, WrongFixer(keyed))))
    assert helped["wrong"] == misled["wrong"] == 0
    assert helped["exact"] >= alone["exact"] and misled["exact"] <= alone["exact"]
