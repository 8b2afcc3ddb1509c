"""GEMINI.md discovery: user file, ancestors, root, below the root (ignores respected), custom names."""

from __future__ import annotations

from pathlib import Path

from gemini_tui.core.setup.context import find_context_files, load_memory


def test_order_and_ignores(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini/GEMINI.md").write_text("user memory")
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "GEMINI.md").write_text("project top")
    root = project / "pkg"
    (root / "sub/deeper").mkdir(parents=True)
    (root / "GEMINI.md").write_text("root")
    (root / "sub/GEMINI.md").write_text("sub")
    (root / "sub/deeper/GEMINI.md").write_text("deeper")
    (root / "node_modules/x").mkdir(parents=True)
    (root / "node_modules/x/GEMINI.md").write_text("vendored")
    (root / "skipped").mkdir()
    (root / "skipped/GEMINI.md").write_text("ignored")
    (root / ".geminiignore").write_text("skipped/\n")
    (tmp_path / "GEMINI.md").write_text("above the project: not read")

    files = find_context_files(root, home, ["GEMINI.md"])
    assert [p.read_text() for p in files] == ["user memory", "project top", "root", "sub", "deeper"]
    memory = load_memory(root, home, ["GEMINI.md"])
    assert memory.text.index("user memory") < memory.text.index("deeper")
    assert f"Context from {root / 'sub/GEMINI.md'}" in memory.text
    assert len(memory.files) == 5


def test_custom_file_names(root: Path, home: Path) -> None:
    (root / "AGENTS.md").write_text("agents")
    (root / "GEMINI.md").write_text("gemini")
    assert load_memory(root, home, ["AGENTS.md"]).text.count("agents") == 1
    assert "gemini" not in load_memory(root, home, ["AGENTS.md"]).text
    assert load_memory(root, home, ["AGENTS.md", "GEMINI.md"]).files == (root / "AGENTS.md", root / "GEMINI.md")


def test_empty_when_nothing_is_there(root: Path, home: Path) -> None:
    assert load_memory(root, home, ["GEMINI.md"]).text == ""


def test_a_root_that_is_the_repository_top_reads_no_ancestors(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    root = tmp_path / "work" / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "GEMINI.md").write_text("repo")
    (tmp_path / "work" / "GEMINI.md").write_text("outside the repository: not read")
    assert [p.read_text() for p in find_context_files(root, home, ["GEMINI.md"])] == ["repo"]
