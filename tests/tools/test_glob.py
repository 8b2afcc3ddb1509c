"""glob (FindFiles): matching, order, case, ignore rules, messages and failures."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.display import FileList
from gemini_tui.core.ground.tool_result import ToolErrorKind, ToolResult
from gemini_tui.tools import glob as glob_module
from gemini_tui.tools.glob import GlobTool
from gemini_tui.tools.workspace import Workspace
from gemini_tui.tools.workspace.glob_pattern import compile_glob


async def run(tool: GlobTool, **raw: Any) -> ToolResult:
    params = tool.validate_params(raw)
    if not isinstance(params, tool.Params):
        return ToolResult.failure(params.kind, params.message)  # type: ignore[union-attr]
    return await tool.execute(params, AbortSignal())


def make(root: Path, files: dict[str, int]) -> None:
    """Create files with the given modification times (seconds since the epoch)."""
    for name, mtime in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(name)
        os.utime(path, (mtime, mtime))


async def test_newest_first_with_absolute_paths(workspace: Workspace, root: Path) -> None:
    make(root, {"src/old.ts": 1000, "src/sub/new.ts": 3000, "src/mid.ts": 2000, "src/x.py": 4000})
    result = await run(GlobTool(workspace), pattern="*.ts", path=str(root / "src"))
    assert result.ok
    assert result.llm_content == (
        f'Found 3 file(s) matching "*.ts" within {root / "src"}, sorted by modification time (newest first):\n'
        f"{root}/src/sub/new.ts\n{root}/src/mid.ts\n{root}/src/old.ts")
    assert isinstance(result.return_display, FileList)
    assert result.return_display.paths == ("src/sub/new.ts", "src/mid.ts", "src/old.ts")


async def test_path_patterns_braces_and_relative_path(workspace: Workspace, root: Path) -> None:
    make(root, {"src/a.ts": 1, "src/deep/b.tsx": 2, "lib/c.ts": 3, "src/d.js": 4})
    tool = GlobTool(workspace)
    result = await run(tool, pattern="src/**/*.{ts,tsx}")
    assert str(result.llm_content).splitlines()[1:] == [f"{root}/src/deep/b.tsx", f"{root}/src/a.ts"]
    result = await run(tool, pattern="*.ts", path="lib")
    assert str(result.llm_content).splitlines()[1:] == [f"{root}/lib/c.ts"]
    result = await run(tool, pattern="src/*.ts")
    assert str(result.llm_content).splitlines()[1:] == [f"{root}/src/a.ts"]


async def test_case_sensitivity(workspace: Workspace, root: Path) -> None:
    make(root, {"README.MD": 1, "notes.md": 2})
    tool = GlobTool(workspace)
    insensitive = await run(tool, pattern="*.md")
    assert str(insensitive.llm_content).startswith('Found 2 file(s)')
    sensitive = await run(tool, pattern="*.md", case_sensitive=True)
    assert str(sensitive.llm_content).splitlines()[1:] == [f"{root}/notes.md"]


async def test_ignore_rules_and_default_excludes(workspace: Workspace, root: Path) -> None:
    make(root, {"a.py": 1, "build/gen.py": 2, "node_modules/m/x.py": 3, ".git/hooks/h.py": 4, "skip.py": 5})
    (root / ".gitignore").write_text("build/\nskip.py\n")
    tool = GlobTool(workspace)
    respected = await run(tool, pattern="**/*.py")
    assert str(respected.llm_content).splitlines()[1:] == [f"{root}/a.py"]
    everything = await run(tool, pattern="**/*.py", respect_git_ignore=False)
    assert str(everything.llm_content).splitlines()[1:] == [f"{root}/skip.py", f"{root}/build/gen.py",
                                                              f"{root}/a.py"]


async def test_no_match_and_failures(workspace: Workspace, root: Path) -> None:
    make(root, {"a.py": 1})
    tool = GlobTool(workspace)
    none = await run(tool, pattern="*.rs")
    assert none.ok and none.llm_content == f'No files found matching pattern "*.rs" within {root}'
    missing = await run(tool, pattern="*.py", path="nope")
    assert missing.error and missing.error.kind is ToolErrorKind.file_not_found
    not_dir = await run(tool, pattern="*.py", path="a.py")
    assert not_dir.error and not_dir.error.kind is ToolErrorKind.not_a_directory
    assert str(not_dir.llm_content) == f"Path is not a directory: {root}/a.py"
    outside = await run(tool, pattern="*.py", path="..")
    assert outside.error and outside.error.kind is ToolErrorKind.path_outside_root
    empty = await run(tool, pattern=" ")
    assert empty.error and empty.error.kind is ToolErrorKind.invalid_params
    # unknown parameters no longer fail the call (issue 11): it runs, and the result names what was ignored
    unknown = await run(tool, pattern="*", colour="red")
    assert unknown.ok and "ignored unknown parameter(s) colour" in str(unknown.llm_content)


async def test_aborted_call_returns_cancelled(workspace: Workspace, root: Path) -> None:
    make(root, {"a.py": 1})
    tool = GlobTool(workspace)
    signal = AbortSignal()
    signal.abort()
    result = await tool.execute(tool.Params(pattern="*.py"), signal)
    assert result.error and result.error.kind is ToolErrorKind.cancelled
    assert tool.find(root, tool.Params(pattern="*.py"), signal) == []


def test_description(workspace: Workspace, root: Path) -> None:
    (root / "src").mkdir()
    tool = GlobTool(workspace)
    assert tool.get_description(tool.Params(pattern="*.py", path=str(root / "src"))) == "'*.py' within src"
    assert tool.get_description(tool.Params(pattern="**/*.md")) == "'**/*.md'"


@pytest.mark.parametrize(("pattern", "path", "expected"), [
    ("*.py", "a/b/c.py", True), ("*.py", "a/b/c.pyc", False), ("**/*.py", "c.py", True),
    ("src/**/x", "src/x", True), ("src/**/x", "src/a/b/x", True), ("src/**/x", "lib/x", False),
    ("src/*", "src/a/b", False), ("?.txt", "a.txt", True), ("?.txt", "ab.txt", False),
    ("[!a]*.md", "b.md", True), ("[!a]*.md", "a.md", False), ("*.{js,ts}", "x/y.ts", True),
    ("docs/**", "docs/a/b.md", True), ("a\\*b", "a*b", True), ("a\\*b", "axb", False), ("[", "[", True),
])
def test_glob_pattern_semantics(pattern: str, path: str, expected: bool) -> None:
    assert compile_glob(pattern).match(path) is expected


async def test_absolute_pattern_under_the_directory(workspace: Workspace, root: Path) -> None:
    make(root, {"src/a.py": 1, "b.py": 2})
    result = await run(GlobTool(workspace), pattern=f"{root}/src/*.py")
    assert str(result.llm_content).splitlines()[1:] == [f"{root}/src/a.py"]


async def test_long_result_lists_the_first_paths_and_says_so(workspace: Workspace, root: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(glob_module, "MAX_LISTED", 2)
    make(root, {"a.py": 1, "b.py": 2, "c.py": 3})
    result = await run(GlobTool(workspace), pattern="*.py")
    lines = str(result.llm_content).splitlines()
    assert lines[0].startswith("Found 3 file(s)")
    assert lines[1:] == [f"{root}/c.py", f"{root}/b.py", "[1 more files not listed; use a narrower pattern or path.]"]


async def test_git_info_exclude_is_honoured_and_gitignore_wins(workspace: Workspace, root: Path) -> None:
    import subprocess

    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".git/info").mkdir(parents=True, exist_ok=True)
    (root / ".git/info/exclude").write_text("*.secret\nlocal/\nkept.log\n")
    (root / ".gitignore").write_text("*.log\n!kept.log\n")
    for name in ("a.secret", "local/x.txt", "kept.log", "other.log", "plain.txt"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name)
    found = await run(GlobTool(workspace), pattern="**/*")
    listed = {Path(p).relative_to(root).as_posix() for p in str(found.llm_content).splitlines()[1:]}
    assert listed - {".gitignore"} == {"kept.log", "plain.txt"}
    # git agrees about what is ignored
    ignored = subprocess.run(["git", "-C", str(root), "check-ignore", "a.secret", "local/x.txt", "kept.log",
                              "other.log", "plain.txt"], capture_output=True, text=True).stdout.split()
    assert set(ignored) == {"a.secret", "local/x.txt", "other.log"}
    everything = await run(GlobTool(workspace), pattern="**/*", respect_git_ignore=False)
    assert "a.secret" in str(everything.llm_content)


@pytest.mark.parametrize("name", ["file[1].txt", "app/[id]/(group)/page.tsx", "notes (draft).md", "[x]/(y)/z[0].ts",
                                  "a[b]c.py"])
async def test_exact_names_with_brackets_and_parentheses(workspace: Workspace, root: Path, name: str) -> None:
    make(root, {name: 1000, "file1.txt": 1000, "app/i/g/page.tsx": 1000})
    found = await run(GlobTool(workspace), pattern=name)
    assert found.ok and str(root / name) in str(found.llm_content), found.llm_content
    absolute = await run(GlobTool(workspace), pattern=str(root / name))
    assert str(root / name) in str(absolute.llm_content)
    listed = str(found.llm_content).splitlines()[1:]
    assert listed == [str(root / name)]


async def test_respect_gemini_ignore_false_finds_gemini_ignored_files(workspace: Workspace, root: Path) -> None:
    # Gemini CLI's glob tests: .geminiignore is honoured by default, and not with respect_gemini_ignore=false;
    # .gitignore still applies then (and the other way round)
    (root / ".geminiignore").write_text("gemini-ignored_test.txt\n")
    (root / ".gitignore").write_text("git-ignored_test.txt\n")
    make(root, {"gemini-ignored_test.txt": 1, "git-ignored_test.txt": 2, "visible_test.txt": 3})
    tool = GlobTool(workspace)

    async def found(**flags: Any) -> set[str]:
        result = await run(tool, pattern="*_test.txt", **flags)
        assert result.ok, result.llm_content
        return {Path(line).name for line in str(result.llm_content).splitlines()[1:]}

    assert await found() == {"visible_test.txt"}
    assert await found(respect_gemini_ignore=False) == {"visible_test.txt", "gemini-ignored_test.txt"}
    assert await found(respect_git_ignore=False) == {"visible_test.txt", "git-ignored_test.txt"}
    assert await found(respect_git_ignore=False, respect_gemini_ignore=False) == {
        "visible_test.txt", "gemini-ignored_test.txt", "git-ignored_test.txt"}


@pytest.mark.parametrize("flag", ["case_sensitive", "respect_git_ignore", "respect_gemini_ignore"])
@pytest.mark.parametrize("value", ["true", "false", 1, 0, None, [True]])
async def test_a_flag_that_is_not_a_boolean_is_refused(workspace: Workspace, flag: str, value: Any) -> None:
    params = GlobTool(workspace).validate_params({"pattern": "*", flag: value})
    assert not isinstance(params, GlobTool.Params)
    assert params.kind is ToolErrorKind.invalid_params and flag in params.message
