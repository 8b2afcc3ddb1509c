"""Included directories (context.includeDirectories, --include-directories, /directory add): part of the
workspace for every file tool, with the same gate; everything else stays outside."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import EditConfirmation
from gemini_tui.core.ground.tool_result import ToolResult
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolParams
from gemini_tui.tools.glob import GlobTool
from gemini_tui.tools.list_directory import ListDirectoryTool
from gemini_tui.tools.read_file import ReadFileTool
from gemini_tui.tools.read_many_files import ReadManyFilesTool
from gemini_tui.tools.replace.tool import ReplaceTool
from gemini_tui.tools.search_file_content.tool import SearchFileContentTool
from gemini_tui.tools.workspace import Workspace
from gemini_tui.tools.write_file import WriteFileTool
from tests.tools import test_path_escapes as escapes


async def _run(tool: BaseTool[Any], raw: dict[str, Any]) -> ToolResult:
    params = tool.validate_params(raw)
    assert isinstance(params, ToolParams), params
    details = await tool.should_confirm_execute(params, AbortSignal())
    reviewed = details.file_diff.original_content if isinstance(details, EditConfirmation) else None
    return await tool.execute(params, AbortSignal(), CallContext(reviewed_content=reviewed))


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path, Path]:
    root, shared, outside = tmp_path / "root", tmp_path / "shared", tmp_path / "outside"
    for directory in (root, shared / "docs", outside):
        directory.mkdir(parents=True)
    (root / "main.py").write_text("print('root')\n")
    (shared / "docs/guide.md").write_text("SHARED GUIDE needle\n")
    (shared / ".gitignore").write_text("secret.txt\n")
    (shared / "secret.txt").write_text("ignored needle\n")
    (outside / "private.md").write_text("PRIVATE needle\n")
    (shared / "escape.md").symlink_to(outside / "private.md")
    return root.resolve(), shared.resolve(), outside.resolve()


async def test_every_tool_works_in_an_included_directory(places: tuple[Path, Path, Path]) -> None:
    root, shared, outside = places
    workspace = Workspace(root, [str(shared)])
    guide = str(shared / "docs/guide.md")
    assert "SHARED GUIDE" in str((await _run(ReadFileTool(workspace), {"path": guide})).llm_content)
    listing = (await _run(ListDirectoryTool(workspace), {"path": str(shared)})).llm_content
    assert "[DIR] docs" in str(listing) and "secret.txt" not in str(listing)  # its .gitignore applies
    found = str((await _run(GlobTool(workspace), {"pattern": "**/*.md"})).llm_content)  # no path: every directory
    assert guide in found and "private.md" not in found
    search = str((await _run(SearchFileContentTool(workspace), {"pattern": "needle", "path": str(shared)})).llm_content)
    assert "SHARED GUIDE needle" in search and "ignored" not in search and "PRIVATE" not in search
    (root / "notes.txt").write_text("root needle\n")
    search = str((await _run(SearchFileContentTool(workspace), {"pattern": "needle"})).llm_content)  # every directory
    assert "File: notes.txt" in search and f"File: {shared / 'docs/guide.md'}" in search
    assert "PRIVATE" not in search and "ignored needle" not in search
    many = str((await _run(ReadManyFilesTool(workspace), {"paths": [guide]})).llm_content)
    assert "SHARED GUIDE" in many
    await _run(ReplaceTool(workspace), {"file_path": guide, "old_string": "GUIDE", "new_string": "RULES"})
    assert (shared / "docs/guide.md").read_text() == "SHARED RULES needle\n"
    await _run(WriteFileTool(workspace), {"file_path": str(shared / "new/file.txt"), "content": "made"})
    assert (shared / "new/file.txt").read_text() == "made"
    # a link out of the included directory is refused like one out of the root
    for path in (shared / "escape.md", outside / "private.md"):
        refused = ReadFileTool(workspace).validate_params({"path": str(path)})
        assert not isinstance(refused, ToolParams) and "included directories" in refused.message


def test_add_directory(places: tuple[Path, Path, Path]) -> None:
    root, shared, outside = places
    workspace = Workspace(root)
    assert not workspace.contains_str(str(shared / "docs"))
    assert workspace.add_directory(str(shared)) == shared
    assert workspace.roots == [root, shared] and workspace.root_for(str(shared / "docs")) == shared
    workspace.add_directory(str(root / "."))  # already inside: nothing added
    assert workspace.roots == [root, shared]
    with pytest.raises(Exception, match="Not a directory"):
        workspace.add_directory(str(outside / "private.md"))


@pytest.mark.parametrize(("tool_name", "factory", "raw"), escapes.ATTEMPTS[::3],
                         ids=[f"{i}-{name}" for i, (name, _, _) in enumerate(escapes.ATTEMPTS[::3])])
async def test_escapes_stay_refused_with_an_included_directory(escapes_layout: Any, tool_name: str, factory: Any,
                                                               raw: dict[str, Any]) -> None:
    """The escape attempts of test_path_escapes, with a sibling directory included: the outside tree is still
    neither read nor changed."""
    layout = escapes_layout
    included = layout.base / "included"
    included.mkdir(exist_ok=True)
    before = escapes.snapshot(layout)
    tool = factory(Workspace(layout.root, [str(included)]))
    raw = escapes.fill(layout, raw)
    params = tool.validate_params(raw)
    outputs: list[object] = [params]
    if isinstance(params, ToolParams):
        details = await tool.should_confirm_execute(params, AbortSignal())
        reviewed = details.file_diff.original_content if isinstance(details, EditConfirmation) else None
        result = await tool.execute(params, AbortSignal(), CallContext(reviewed_content=reviewed))
        outputs += [result.llm_content, result.return_display]
    text = escapes.visible_text(outputs)
    for leak in escapes.LEAKS:
        assert leak not in text
    assert escapes.snapshot(layout) == before
    assert os.listdir(included) == []


@pytest.fixture
def escapes_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    return escapes.layout.__wrapped__(tmp_path, monkeypatch)  # type: ignore[attr-defined]
