"""The `read_file` tool (ReadFile): text by line range, images and PDF as inline data, binaries named only."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

from pydantic import AliasChoices, Field

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.display import FileContent
from gemini_tui.core.ground.parts import InlineDataPart
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams
from gemini_tui.tools.workspace import FileType, Workspace, WorkspaceError, mime_type_of, sniff_bytes
from gemini_tui.tools.workspace.text_file import decode_text, editor_text

DEFAULT_LINE_LIMIT = 2000
MAX_LINE_LENGTH = 2000
MAX_FILE_BYTES = 20 * 1024 * 1024


class ReadFileParams(ToolParams):
    path: str = Field(validation_alias=AliasChoices("path", "absolute_path", "file_path"),
                      description="The absolute path of the file to read (a path relative to the root directory "
                                  "also works).")
    offset: int | None = Field(default=None, ge=0, description="For text files: the 0-based line number to "
                                                               "start reading from. Use with 'limit'.")
    limit: int | None = Field(default=None, ge=1, description="For text files: how many lines to read at most. "
                                                              f"Without it, up to {DEFAULT_LINE_LIMIT} lines.")


class ReadFileTool(BaseTool[ReadFileParams]):
    name = "read_file"
    display_name = "ReadFile"
    kind = ToolKind.read
    Params = ReadFileParams
    description = (
        "Reads a file and returns its content. For text files, reads up to 2000 lines unless 'offset' and "
        "'limit' choose a range; a notice at the top says when the content was cut and how to read more. Images "
        "(PNG, JPG, GIF, WEBP, SVG, BMP) and PDF files are returned as data the model can see. Other binary "
        "files are not read."
    )

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def check_params(self, params: ReadFileParams) -> ToolError | None:
        try:
            self.workspace.resolve(params.path)
        except WorkspaceError as exc:
            return exc.as_tool_error()
        return None

    def get_description(self, params: ReadFileParams) -> str:
        try:
            shown = self.workspace.relative(self.workspace.resolve(params.path))
        except WorkspaceError:
            shown = params.path
        if params.offset is None and params.limit is None:
            return shown
        first = (params.offset or 0) + 1
        if params.limit is None:
            return f"{shown} (from line {first})"
        return f"{shown} (lines {first}-{first + params.limit - 1})"

    async def _execute(self, params: ReadFileParams, abort_signal: AbortSignal, context: CallContext) -> ToolResult:
        try:
            path = self.workspace.resolve(params.path, must_exist=True)
        except WorkspaceError as exc:
            return ToolResult.failure(exc.kind, exc.message)
        return await asyncio.to_thread(self._read, path, params)

    def _read(self, path: Path, params: ReadFileParams) -> ToolResult:
        if path.is_dir():
            return ToolResult.failure(ToolErrorKind.is_a_directory,
                                      f"Path is a directory, not a file: {path}. Use list_directory to see "
                                      "its entries.")
        if not path.is_file():  # a FIFO or device would block the read or never end
            return ToolResult.failure(ToolErrorKind.invalid_params, f"Not a regular file: {path}")
        if self.workspace.is_ignored(path, False, respect_git_ignore=False, default_excludes=False):
            return ToolResult.failure(ToolErrorKind.not_allowed,
                                      f"File is ignored by .geminiignore rules and is not read: {path}")
        try:
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                return ToolResult.failure(ToolErrorKind.file_too_large,
                                          f"File is too large to read ({size / 1048576:.1f} MiB; the limit is "
                                          f"{MAX_FILE_BYTES // 1048576} MiB): {path}")
            data = path.read_bytes()
        except PermissionError:
            return ToolResult.failure(ToolErrorKind.permission_denied, f"Permission denied: {path}")
        except OSError as exc:
            return ToolResult.failure(ToolErrorKind.execution_failed, f"Cannot read {path}: {exc.strerror or exc}")
        rel = self.workspace.relative(path)
        match sniff_bytes(path.name, data[:4096]):
            case FileType.image | FileType.pdf:
                part = InlineDataPart(mime_type_of(path), base64.b64encode(data).decode("ascii"))
                return ToolResult([part], f"Read {part.mime_type} file {rel} ({len(data)} bytes)")
            case FileType.binary:
                return ToolResult(f"Cannot display content of binary file: {path}",
                                  f"Skipped binary file {rel}")
        buffered = editor_text(path, self.workspace.root_for(path))  # the editor's unsaved text, if it has one
        content = buffered if buffered is not None else decode_text(data).content
        return text_result(path, rel, content, params.offset, params.limit)


def split_lines(content: str) -> list[str]:
    """Lines without their endings; a final newline does not start another line."""
    lines = content.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def text_result(path: Path, rel: str, content: str, offset: int | None, limit: int | None) -> ToolResult:
    """The model's view of a text file: the chosen lines, long lines shortened, and a notice when cut."""
    lines = split_lines(content)
    total = len(lines)
    start = offset or 0
    if start and start >= total:
        return ToolResult.failure(ToolErrorKind.invalid_params,
                                  f"Line offset {start} is beyond the end of the file ({total} lines): {path}. "
                                  f"Use an offset below {total}.")
    end = min(start + (limit or DEFAULT_LINE_LIMIT), total)
    shown = lines[start:end]
    shortened = False
    for index, line in enumerate(shown):
        if len(line) > MAX_LINE_LENGTH:
            shown[index] = line[:MAX_LINE_LENGTH] + "... [line truncated]"
            shortened = True
    body = "\n".join(shown)
    # the model must see the final newline, or a whole-file rewrite drops it
    final = "\n" if end == total and total and content.endswith("\n") else ""
    notices = []
    cut = start > 0 or end < total
    if cut:
        more = f" To read more, call read_file with offset={end}." if end < total else ""
        notices.append(f"[File content truncated: showing lines {start + 1}-{end} of {total} total lines.{more}]")
    if shortened:
        notices.append(f"[File content partially truncated: lines longer than {MAX_LINE_LENGTH} characters "
                       "were shortened.]")
    llm = "\n".join([*notices, body + final]) if notices else body + final
    display = FileContent(rel, body, first_line=start + 1, total_lines=total, truncated=cut or shortened)
    return ToolResult(llm, display)
