"""read_file (ReadFile): text ranges and notices, encodings, images/PDF as inline data, binaries, failures."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.display import FileContent
from gemini_tui.core.ground.parts import InlineDataPart
from gemini_tui.core.ground.tool_result import ToolErrorKind, ToolResult
from gemini_tui.tools.read_file import ReadFileTool
from gemini_tui.tools.workspace import Workspace

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"


async def run(tool: ReadFileTool, **raw: Any) -> ToolResult:
    params = tool.validate_params(raw)
    if not isinstance(params, tool.Params):
        return ToolResult.failure(params.kind, params.message)  # type: ignore[union-attr]
    return await tool.execute(params, AbortSignal())


def numbered(count: int) -> str:
    return "".join(f"line {i}\n" for i in range(1, count + 1))


async def test_whole_small_file(workspace: Workspace, root: Path) -> None:
    (root / "a.py").write_text("print(1)\nprint(2)\n")
    result = await run(ReadFileTool(workspace), path=str(root / "a.py"))
    # the final newline stays visible to the model (issue 11): a whole-file rewrite keeps it
    assert result.ok and result.llm_content == "print(1)\nprint(2)\n"
    assert result.return_display == FileContent("a.py", "print(1)\nprint(2)", 1, 2, False)


async def test_offset_and_limit_with_notice(workspace: Workspace, root: Path) -> None:
    (root / "big.txt").write_text(numbered(500))
    tool = ReadFileTool(workspace)
    result = await run(tool, path="big.txt", offset=0, limit=100)
    lines = str(result.llm_content).split("\n")
    assert lines[0] == ("[File content truncated: showing lines 1-100 of 500 total lines. To read more, call "
                        "read_file with offset=100.]")
    assert lines[1] == "line 1" and lines[-1] == "line 100" and len(lines) == 101
    tail = await run(tool, path="big.txt", offset=490, limit=50)
    assert str(tail.llm_content).split("\n")[0] == "[File content truncated: showing lines 491-500 of 500 total lines.]"
    assert isinstance(tail.return_display, FileContent) and tail.return_display.first_line == 491
    assert tool.get_description(tool.Params(path=str(root / "big.txt"), offset=10, limit=5)) == "big.txt (lines 11-15)"
    beyond = await run(tool, path="big.txt", offset=500, limit=1)
    assert beyond.error and beyond.error.kind is ToolErrorKind.invalid_params and "beyond" in beyond.error.message


async def test_default_line_limit_and_long_lines(workspace: Workspace, root: Path) -> None:
    (root / "huge.txt").write_text(numbered(2500))
    result = await run(ReadFileTool(workspace), path="huge.txt")
    lines = str(result.llm_content).split("\n")
    assert lines[0].startswith("[File content truncated: showing lines 1-2000 of 2500 total lines.")
    assert lines[-1] == "line 2000"
    (root / "wide.txt").write_text("short\n" + "x" * 5000 + "\n")
    wide = await run(ReadFileTool(workspace), path="wide.txt")
    text = str(wide.llm_content)
    assert text.startswith("[File content partially truncated")
    assert "x" * 2000 + "... [line truncated]" in text and "x" * 2001 not in text


async def test_encodings_and_line_endings(workspace: Workspace, root: Path) -> None:
    (root / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")
    (root / "latin.txt").write_bytes("caf\u00e9\n".encode("cp1252"))
    (root / "wide.txt").write_bytes("h\u00e9llo\nw\u00f6rld\n".encode("utf-16"))
    tool = ReadFileTool(workspace)
    assert (await run(tool, path="crlf.txt")).llm_content == "one\ntwo\n"
    assert (await run(tool, path="latin.txt")).llm_content == "caf\u00e9\n"
    assert (await run(tool, path="wide.txt")).llm_content == "h\u00e9llo\nw\u00f6rld\n"
    (root / "no-final.txt").write_bytes(b"one\ntwo")
    assert (await run(tool, path="no-final.txt")).llm_content == "one\ntwo"  # the model can tell the two apart
    part = await run(tool, path="crlf.txt", offset=0, limit=1)
    assert str(part.llm_content).endswith("\none")  # a cut view never claims a final newline
    (root / "empty.txt").write_bytes(b"")
    assert (await run(tool, path="empty.txt")).llm_content == ""


@pytest.mark.parametrize(("name", "data", "mime"), [
    ("pic.png", PNG, "image/png"), ("photo.JPG", b"\xff\xd8\xff\xe0rest", "image/jpeg"),
    ("anim.gif", b"GIF89a....", "image/gif"), ("img.webp", b"RIFF....WEBP", "image/webp"),
    ("logo.svg", b"<svg xmlns='http://www.w3.org/2000/svg'/>", "image/svg+xml"), ("i.bmp", b"BM....", "image/bmp"),
    ("doc.pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "application/pdf"),
])
async def test_images_and_pdf_as_inline_data(workspace: Workspace, root: Path, name: str, data: bytes,
                                             mime: str) -> None:
    (root / name).write_bytes(data)
    result = await run(ReadFileTool(workspace), path=name)
    assert result.ok
    assert result.llm_content == [InlineDataPart(mime, base64.b64encode(data).decode())]


async def test_binary_file(workspace: Workspace, root: Path) -> None:
    (root / "data.bin").write_bytes(bytes(range(256)) * 4)
    (root / "noext").write_bytes(b"\x00\x01\x02binary")
    tool = ReadFileTool(workspace)
    assert (await run(tool, path="data.bin")).llm_content == f"Cannot display content of binary file: {root}/data.bin"
    assert (await run(tool, path="noext")).llm_content == f"Cannot display content of binary file: {root}/noext"


async def test_aliases(workspace: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("hi\n")
    tool = ReadFileTool(workspace)
    for key in ("absolute_path", "file_path", "path"):
        assert (await run(tool, **{key: str(root / "a.txt")})).llm_content == "hi\n"


async def test_failures(workspace: Workspace, root: Path) -> None:
    tool = ReadFileTool(workspace)
    missing = await run(tool, path="nope.txt")
    assert missing.error and missing.error.kind is ToolErrorKind.file_not_found
    assert str(root / "nope.txt") in missing.error.message
    (root / "dir").mkdir()
    directory = await run(tool, path="dir")
    assert directory.error and directory.error.kind is ToolErrorKind.is_a_directory
    outside = await run(tool, path="/etc/passwd")
    assert outside.error and outside.error.kind is ToolErrorKind.path_outside_root
    negative = await run(tool, path="x", offset=-1)
    assert negative.error and negative.error.kind is ToolErrorKind.invalid_params
    (root / ".geminiignore").write_text("secret.txt\n")
    (root / "secret.txt").write_text("token\n")
    ignored = await run(tool, path="secret.txt")
    assert ignored.error and ignored.error.kind is ToolErrorKind.not_allowed and "token" not in ignored.llm_content
    with open(root / "sparse.log", "wb") as handle:
        handle.truncate(21 * 1024 * 1024)
    large = await run(tool, path="sparse.log")
    assert large.error and large.error.kind is ToolErrorKind.file_too_large


async def test_fifo_is_refused_without_blocking(workspace: Workspace, root: Path) -> None:
    os.mkfifo(root / "pipe")
    result = await run(ReadFileTool(workspace), path="pipe")
    assert result.error and result.error.kind is ToolErrorKind.invalid_params
    assert result.llm_content == f"Not a regular file: {root}/pipe"


async def test_symlink_loop_is_a_clean_failure(workspace: Workspace, root: Path) -> None:
    (root / "loop").symlink_to(root / "loop")
    result = await run(ReadFileTool(workspace), path="loop")
    assert result.error is not None and result.error.kind is not ToolErrorKind.execution_failed
