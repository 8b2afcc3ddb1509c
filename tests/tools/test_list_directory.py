"""list_directory (ReadFolder): order, [DIR] marks, ignore globs and rules, messages and failures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.display import DirectoryListing, ListingEntry
from gemini_tui.core.ground.tool_result import ToolErrorKind, ToolResult
from gemini_tui.tools.list_directory import ListDirectoryTool
from gemini_tui.tools.workspace import Workspace


async def run(tool: ListDirectoryTool, **raw: Any) -> ToolResult:
    params = tool.validate_params(raw)
    if not isinstance(params, tool.Params):
        return ToolResult.failure(params.kind, params.message)  # type: ignore[union-attr]
    return await tool.execute(params, AbortSignal())


def make(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        if name.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("12345")


async def test_directories_first_then_alphabetical(workspace: Workspace, root: Path) -> None:
    make(root, "file2.png", "subfolder1/", "File1.txt", "a_dir/", "zeta.md")
    result = await run(ListDirectoryTool(workspace), path=str(root))
    assert result.ok
    assert result.llm_content == (
        f"Directory listing for {root}:\n[DIR] a_dir\n[DIR] subfolder1\nFile1.txt\nfile2.png\nzeta.md")
    display = result.return_display
    assert isinstance(display, DirectoryListing)
    assert display.entries[0] == ListingEntry("a_dir", True, 0)
    assert ListingEntry("zeta.md", False, 5) in display.entries


async def test_relative_path_and_dir_path_alias(workspace: Workspace, root: Path) -> None:
    make(root, "src/app.py", "src/lib/")
    tool = ListDirectoryTool(workspace)
    for raw in ({"path": "src"}, {"dir_path": str(root / "src")}):
        result = await run(tool, **raw)
        assert result.llm_content == f"Directory listing for {root}/src:\n[DIR] lib\napp.py"
    assert tool.get_description(tool.Params(path=str(root / "src"))) == "src"
    assert "dir_path" not in tool.parameter_schema["properties"]


async def test_ignore_globs_and_rules(workspace: Workspace, root: Path) -> None:
    make(root, "a.log", "b.txt", "keep.txt", "dist/", ".git/", "node_modules/", "secret.env")
    (root / ".gitignore").write_text("dist/\n*.env\n")
    tool = ListDirectoryTool(workspace)
    result = await run(tool, path=".", ignore=["*.log", "keep*"])
    assert result.llm_content == f"Directory listing for {root}:\n.gitignore\nb.txt\n\n(4 ignored)"
    assert isinstance(result.return_display, DirectoryListing) and result.return_display.ignored_count == 4
    everything = await run(tool, path=".", respect_git_ignore=False)
    names = str(everything.llm_content).splitlines()[1:]
    assert names == ["[DIR] .git", "[DIR] dist", "[DIR] node_modules", ".gitignore", "a.log", "b.txt",
                     "keep.txt", "secret.env"]


async def test_nested_gitignore_applies_inside_listed_dir(workspace: Workspace, root: Path) -> None:
    make(root, "pkg/mod.py", "pkg/cache.bin", "pkg/sub/")
    (root / ".gitignore").write_text("*.bin\n")
    (root / "pkg" / ".gitignore").write_text("sub/\n")
    result = await run(ListDirectoryTool(workspace), path="pkg")
    assert result.llm_content == f"Directory listing for {root}/pkg:\n.gitignore\nmod.py\n\n(2 ignored)"


async def test_empty_directory(workspace: Workspace, root: Path) -> None:
    (root / "empty").mkdir()
    result = await run(ListDirectoryTool(workspace), path=str(root / "empty"))
    assert result.ok and result.llm_content == f"Directory {root}/empty is empty."


async def test_symlinks_are_listed_not_followed(workspace: Workspace, root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("x")
    (root / "out").symlink_to(outside)
    (root / "dangling").symlink_to(tmp_path / "nowhere")
    tool = ListDirectoryTool(workspace)
    result = await run(tool, path=".")
    assert result.llm_content == f"Directory listing for {root}:\n[DIR] out\ndangling"
    entered = await run(tool, path="out")
    assert entered.error and entered.error.kind is ToolErrorKind.path_outside_root
    assert "secret" not in str(entered.llm_content)


async def test_failures(workspace: Workspace, root: Path) -> None:
    make(root, "f.txt")
    tool = ListDirectoryTool(workspace)
    missing = await run(tool, path="nope")
    assert missing.error and missing.error.kind is ToolErrorKind.file_not_found
    assert missing.llm_content == f"Directory not found: {root}/nope"
    file = await run(tool, path="f.txt")
    assert file.error and file.error.kind is ToolErrorKind.not_a_directory
    assert str(file.llm_content).startswith(f"Path is not a directory: {root}/f.txt")
    outside = await run(tool, path="/")
    assert outside.error and outside.error.kind is ToolErrorKind.path_outside_root
    no_path = await run(tool)
    assert no_path.error and no_path.error.kind is ToolErrorKind.invalid_params and "path" in no_path.error.message
    locked = root / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        denied = await run(tool, path="locked")
        if denied.error:  # root can read anything; for everyone else it is a clean refusal
            assert denied.error.kind is ToolErrorKind.permission_denied
    finally:
        locked.chmod(0o755)
