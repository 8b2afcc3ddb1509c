"""save_memory: the fact lands at the end of the memories section of an injected home, and the context reloads."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.tool_result import ToolErrorKind
from gemini_tui.tools.save_memory import SaveMemoryParams, SaveMemoryTool, add_fact


@pytest.fixture
def gemini_dir(tmp_path: Path) -> Path:
    return tmp_path / "home" / ".gemini"


async def save(tool: SaveMemoryTool, fact: str) -> str:
    params = tool.validate_params({"fact": fact})
    assert isinstance(params, SaveMemoryParams)
    result = await tool.execute(params, AbortSignal())
    assert result.ok, result.llm_content
    assert isinstance(result.llm_content, str)
    return result.llm_content


async def test_creates_file_and_section(gemini_dir: Path) -> None:
    reloads: list[int] = []
    tool = SaveMemoryTool(gemini_dir, on_saved=lambda: reloads.append(1))
    message = await save(tool, "My favourite colour is blue")
    assert message == 'Okay, I\'ve remembered that: "My favourite colour is blue"'
    assert (gemini_dir / "GEMINI.md").read_text() == "## Gemini Added Memories\n- My favourite colour is blue\n"
    await save(tool, "I use  tabs\nnot spaces")
    assert (gemini_dir / "GEMINI.md").read_text().endswith("- My favourite colour is blue\n- I use tabs not spaces\n")
    assert reloads == [1, 1]


async def test_async_reload_callback_is_awaited(gemini_dir: Path) -> None:
    seen: list[str] = []

    async def reload() -> None:
        seen.append((gemini_dir / "GEMINI.md").read_text())

    await save(SaveMemoryTool(gemini_dir, on_saved=reload), "fact one")
    assert seen and "- fact one" in seen[0]


async def test_section_in_the_middle_gets_the_fact_at_its_end(gemini_dir: Path) -> None:
    gemini_dir.mkdir(parents=True)
    original = "# Me\nintro\n\n## Gemini Added Memories\n- old fact\n\n## Other\nkeep me\n"
    (gemini_dir / "GEMINI.md").write_text(original)
    await save(SaveMemoryTool(gemini_dir), "new fact")
    assert (gemini_dir / "GEMINI.md").read_text() == (
        "# Me\nintro\n\n## Gemini Added Memories\n- old fact\n- new fact\n\n## Other\nkeep me\n")


async def test_existing_file_without_section_keeps_content_and_crlf(gemini_dir: Path) -> None:
    gemini_dir.mkdir(parents=True)
    (gemini_dir / "GEMINI.md").write_bytes(b"# Notes\r\nbe nice\r\n")
    await save(SaveMemoryTool(gemini_dir), "x")
    assert (gemini_dir / "GEMINI.md").read_bytes() == b"# Notes\r\nbe nice\r\n\r\n## Gemini Added Memories\r\n- x\r\n"


@pytest.mark.parametrize(("content", "expected"), [
    ("", "## Gemini Added Memories\n- f\n"),
    ("## Gemini Added Memories\n", "## Gemini Added Memories\n- f\n"),
    ("## Gemini Added Memories\n- a", "## Gemini Added Memories\n- a\n- f\n"),
    ("## Gemini Added Memories\n- a\n### sub\n- b\n", "## Gemini Added Memories\n- a\n### sub\n- b\n- f\n"),
    ("text", "text\n\n## Gemini Added Memories\n- f\n"),
])
def test_add_fact(content: str, expected: str) -> None:
    assert add_fact(content, "f") == expected


def test_empty_fact_is_invalid(gemini_dir: Path) -> None:
    error = SaveMemoryTool(gemini_dir).validate_params({"fact": "  "})
    assert not isinstance(error, SaveMemoryParams)
    assert error.kind is ToolErrorKind.invalid_params


@pytest.mark.parametrize(("fact", "stored"), [
    ("- - My fact", "- My fact"), ("-My fact", "- My fact"), ("--  -  spaced  out ", "- spaced out"),
    ("well-known - dashes inside stay", "- well-known - dashes inside stay"), ("  plain", "- plain"),
])
def test_leading_dashes_are_stripped(fact: str, stored: str) -> None:
    from gemini_tui.tools.save_memory import MEMORY_SECTION, add_fact, clean_fact

    lines = add_fact("", fact).split("\n")
    assert lines[lines.index(MEMORY_SECTION) + 1] == stored
    assert clean_fact("- - -") == ""
