"""Docstrings and comments cite files in this repository or public pages, never a document kept outside it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FOLDERS = ("app", "cli", "core", "gemini_tui", "styles", "tools", "tests", "bench", "screenshots")
# the contract, layout and style documents the project was written from: not shipped, so never cited
OUTSIDE = re.compile(r"\b(SPEC|DESIGN|STYLE)\.md\b")


def sources() -> list[Path]:
    return sorted(p for folder in FOLDERS for p in (REPO / folder).rglob("*.py") if p != Path(__file__).resolve())


def test_sources_are_found() -> None:
    assert len(sources()) > 300


@pytest.mark.parametrize("text", ['"""The tool API of SPEC.md §1."""', "# see DESIGN.md", "(STYLE.md)"])
def test_the_probe_sees_a_citation(text: str) -> None:
    assert OUTSIDE.search(text)


def test_no_source_cites_a_document_outside_the_repository() -> None:
    citing = [f"{path.relative_to(REPO)}:{number}" for path in sources()
              for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if OUTSIDE.search(line)]
    assert citing == []
