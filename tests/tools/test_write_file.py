"""write_file (WriteFile): create and overwrite, diffs for review, kept encodings, refusing unseen changes."""

from __future__ import annotations

import codecs
import os
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import EditConfirmation
from gemini_tui.core.ground.display import FileDiff
from gemini_tui.core.ground.tool_result import ToolErrorKind, ToolResult
from gemini_tui.core.tooling.tool import CallContext
from gemini_tui.tools.workspace import Workspace, text_file
from gemini_tui.tools.write_file import WriteFileTool


async def run(tool: WriteFileTool, context: CallContext | None = None, **raw: Any) -> ToolResult:
    params = tool.validate_params(raw)
    if not isinstance(params, tool.Params):
        return ToolResult.failure(params.kind, params.message)  # type: ignore[union-attr]
    return await tool.execute(params, AbortSignal(), context)


async def test_creates_file_and_parents(workspace: Workspace, root: Path) -> None:
    result = await run(WriteFileTool(workspace), file_path=str(root / "new" / "deep" / "a.txt"), content="hi\n")
    assert result.ok
    assert result.llm_content == f"Successfully created and wrote to new file: {root}/new/deep/a.txt"
    assert (root / "new" / "deep" / "a.txt").read_bytes() == b"hi\n"
    assert isinstance(result.return_display, FileDiff) and result.return_display.is_new_file
    assert result.return_display.lines_added == 1


async def test_overwrite_keeps_crlf_bom_encoding_and_mode(workspace: Workspace, root: Path) -> None:
    tool = WriteFileTool(workspace)
    crlf = root / "win.txt"
    crlf.write_bytes(codecs.BOM_UTF8 + b"a\r\nb\r\n")
    crlf.chmod(0o640)
    result = await run(tool, file_path="win.txt", content="a\nc\nd\n")
    assert result.llm_content == f"Successfully overwrote file: {root}/win.txt"
    assert crlf.read_bytes() == codecs.BOM_UTF8 + b"a\r\nc\r\nd\r\n"
    assert os.stat(crlf).st_mode & 0o777 == 0o640
    wide = root / "wide.txt"
    wide.write_bytes("old\n".encode("utf-16"))
    await run(tool, file_path="wide.txt", content="n\u00e9w\n")
    assert wide.read_bytes() == "n\u00e9w\n".encode("utf-16")
    display = result.return_display
    assert isinstance(display, FileDiff) and (display.lines_added, display.lines_removed) == (2, 1)


async def test_writes_through_symlink(workspace: Workspace, root: Path) -> None:
    (root / "real.txt").write_text("old\n")
    (root / "link.txt").symlink_to(root / "real.txt")
    result = await run(WriteFileTool(workspace), file_path="link.txt", content="new\n")
    assert result.ok and (root / "link.txt").is_symlink()
    assert (root / "real.txt").read_text() == "new\n"


async def test_confirmation_carries_diff_and_refreshes(workspace: Workspace, root: Path) -> None:
    tool = WriteFileTool(workspace)
    target = root / "src" / "a.py"
    target.parent.mkdir()
    target.write_text("x = 1\n")
    params = tool.Params(file_path=str(target), content="x = 2\n")
    details = await tool.should_confirm_execute(params, AbortSignal())
    assert isinstance(details, EditConfirmation)
    assert details.file_path == str(target) and details.title == "Confirm Write: src/a.py"
    assert details.file_diff.original_content == "x = 1\n" and "-x = 1\n+x = 2\n" in details.file_diff.diff
    target.write_text("x = 1\ny = 0\n")
    assert details.refresh is not None
    refreshed = await details.refresh()
    assert refreshed.original_content == "x = 1\ny = 0\n"
    new = await tool.should_confirm_execute(tool.Params(file_path="fresh.txt", content="a\n"), AbortSignal())
    assert isinstance(new, EditConfirmation) and new.file_diff.is_new_file and new.file_diff.original_content == ""
    assert tool.get_description(params) == "Write to src/a.py"


async def test_refuses_changes_the_user_did_not_see(workspace: Workspace, root: Path) -> None:
    tool = WriteFileTool(workspace)
    target = root / "a.txt"
    target.write_text("seen\n")
    target.write_text("changed meanwhile\n")
    stale = await run(tool, CallContext(reviewed_content="seen\n"), file_path="a.txt", content="mine\n")
    assert stale.error and stale.error.kind is ToolErrorKind.file_changed
    assert target.read_text() == "changed meanwhile\n"
    fresh = await run(tool, CallContext(reviewed_content="changed meanwhile\n"), file_path="a.txt", content="mine\n")
    assert fresh.ok and target.read_text() == "mine\n"
    created_meanwhile = await run(tool, CallContext(reviewed_content=""), file_path="a.txt", content="x\n")
    assert created_meanwhile.error and created_meanwhile.error.kind is ToolErrorKind.file_changed


def test_with_new_content(workspace: Workspace) -> None:
    tool = WriteFileTool(workspace)
    params = tool.Params(file_path="a.txt", content="model's")
    assert tool.with_new_content(params, "user's", "model's") == tool.Params(file_path="a.txt", content="user's")


async def test_failures(workspace: Workspace, root: Path) -> None:
    tool = WriteFileTool(workspace)
    (root / "dir").mkdir()
    (root / "file.txt").write_text("x")
    directory = await run(tool, file_path="dir", content="x")
    assert directory.error and directory.error.kind is ToolErrorKind.is_a_directory
    under_file = await run(tool, file_path="file.txt/child.txt", content="x")
    assert under_file.error and under_file.error.kind is ToolErrorKind.not_a_directory
    assert (root / "file.txt").read_text() == "x"
    assert await tool.should_confirm_execute(tool.Params(file_path="dir", content=""), AbortSignal()) is None
    outside = await run(tool, file_path="../escape.txt", content="x")
    assert outside.error and outside.error.kind is ToolErrorKind.path_outside_root
    assert not (root.parent / "escape.txt").exists()
    the_root = await run(tool, file_path=str(root), content="x")
    assert the_root.error and the_root.error.kind is ToolErrorKind.is_a_directory
    missing = await run(tool, file_path="a.txt")
    assert missing.error and missing.error.kind is ToolErrorKind.invalid_params and "content" in missing.error.message
    read_only = root / "ro"
    read_only.mkdir()
    read_only.chmod(0o555)
    try:
        denied = await run(tool, file_path="ro/x.txt", content="x")
        if os.geteuid() != 0:  # root may write anywhere
            assert denied.error and denied.error.kind is ToolErrorKind.permission_denied
    finally:
        read_only.chmod(0o755)


async def test_fifo_is_not_replaced(workspace: Workspace, root: Path) -> None:
    os.mkfifo(root / "pipe")
    tool = WriteFileTool(workspace)
    assert await tool.should_confirm_execute(tool.Params(file_path="pipe", content="x"), AbortSignal()) is None
    result = await run(tool, file_path="pipe", content="x")
    assert result.error and result.error.kind is ToolErrorKind.invalid_params
    assert (root / "pipe").is_fifo()


async def test_symlink_loop_is_not_replaced(workspace: Workspace, root: Path) -> None:
    (root / "loop").symlink_to(root / "loop")
    result = await run(WriteFileTool(workspace), file_path="loop", content="x")
    assert result.error is not None and "symbolic links" in result.error.message
    assert (root / "loop").is_symlink()


async def test_writes_go_through_the_one_write_function(workspace: Workspace, root: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[Path, bytes | None]] = []
    monkeypatch.setattr(text_file, "BEFORE_WRITE_HOOKS", [lambda path, old: seen.append((path, old))])
    tool = WriteFileTool(workspace)
    await run(tool, file_path="a.txt", content="1\n")
    await run(tool, file_path="a.txt", content="2\n")
    assert seen == [(root / "a.txt", None), (root / "a.txt", b"1\n")]


async def test_read_only_file_is_not_replaced(workspace: Workspace, root: Path) -> None:
    # the rename in write_bytes_atomic would replace it anyway (and root ignores the bits): refuse it ourselves
    target = root / "locked.txt"
    target.write_bytes(b"keep\n")
    target.chmod(0o444)
    result = await run(WriteFileTool(workspace), file_path=str(target), content="new\n")
    assert result.error is not None and result.error.kind is ToolErrorKind.permission_denied
    assert "read-only" in result.error.message
    assert target.read_bytes() == b"keep\n"
    assert stat_mode(target) == 0o444


def stat_mode(path: Path) -> int:
    return path.stat().st_mode & 0o777
