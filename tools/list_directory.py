"""The `list_directory` tool (ReadFolder): a directory's entries, directories first, then by name."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import ClassVar

from pydantic import AliasChoices, Field

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.display import DirectoryListing, ListingEntry
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams
from gemini_tui.tools.workspace import Workspace, WorkspaceError
from gemini_tui.tools.workspace.glob_pattern import compile_glob


class ListDirectoryParams(ToolParams):
    gemini_cli_names: ClassVar[dict[str, str | None]] = {"file_filtering_options": None,
                                                         "respect_gemini_ignore": None}
    path: str = Field(validation_alias=AliasChoices("path", "dir_path"),
                      description="The absolute path of the directory to list (a path relative to the root "
                                  "directory also works).")
    ignore: list[str] | None = Field(default=None, description="Glob patterns of entry names to leave out, "
                                                               "e.g. ['*.log', 'dist'].")
    respect_git_ignore: bool = Field(default=True, description="Whether to leave out entries ignored by "
                                                               ".gitignore (default true).")


class ListDirectoryTool(BaseTool[ListDirectoryParams]):
    name = "list_directory"
    display_name = "ReadFolder"
    kind = ToolKind.search
    Params = ListDirectoryParams
    description = (
        "Lists the files and subdirectories directly inside a directory, subdirectories first (marked [DIR]), "
        "then files, each group by name. Entries ignored by .gitignore or .geminiignore are left out and "
        "counted. Can also leave out entries whose names match given glob patterns."
    )

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def check_params(self, params: ListDirectoryParams) -> ToolError | None:
        try:
            self.workspace.resolve(params.path)
        except WorkspaceError as exc:
            return exc.as_tool_error()
        return None

    def get_description(self, params: ListDirectoryParams) -> str:
        try:
            return self.workspace.relative(self.workspace.resolve(params.path))
        except WorkspaceError:
            return params.path

    async def _execute(self, params: ListDirectoryParams, abort_signal: AbortSignal,
                       context: CallContext) -> ToolResult:
        try:
            directory = self.workspace.resolve(params.path, must_exist=True)
        except WorkspaceError as exc:
            if exc.kind is ToolErrorKind.file_not_found:
                return ToolResult.failure(exc.kind, f"Directory not found: {self.workspace.resolve(params.path)}")
            return ToolResult.failure(exc.kind, exc.message)
        if not directory.is_dir():
            return ToolResult.failure(ToolErrorKind.not_a_directory,
                                      f"Path is not a directory: {directory}. Use read_file to read a file.")
        try:
            entries, ignored = await asyncio.to_thread(self._entries, directory, params)
        except PermissionError:
            return ToolResult.failure(ToolErrorKind.permission_denied, f"Permission denied: {directory}")
        except OSError as exc:
            return ToolResult.failure(ToolErrorKind.execution_failed,
                                      f"Cannot list directory {directory}: {exc.strerror or exc}")
        display = DirectoryListing(self.workspace.relative(directory), tuple(entries), ignored)
        note = f"\n\n({ignored} ignored)" if ignored else ""
        if not entries:
            return ToolResult(f"Directory {directory} is empty.{note}", display)
        lines = [f"[DIR] {e.name}" if e.is_dir else e.name for e in entries]
        return ToolResult(f"Directory listing for {directory}:\n" + "\n".join(lines) + note, display)

    def _entries(self, directory: Path, params: ListDirectoryParams) -> tuple[list[ListingEntry], int]:
        """The listed entries in order and how many the ignore rules left out (runs in a worker thread)."""
        skip = [compile_glob(pattern) for pattern in params.ignore or () if pattern.strip()]
        is_ignored = self.workspace.entry_filter(directory, respect_git_ignore=params.respect_git_ignore,
                                                 default_excludes=params.respect_git_ignore)
        entries: list[ListingEntry] = []
        ignored = 0
        with os.scandir(directory) as listing:
            for entry in listing:
                if any(glob.match(entry.name) for glob in skip):
                    continue
                try:
                    is_dir = entry.is_dir()  # a symlink to a directory is listed as one; it is not entered
                    size = 0 if is_dir else entry.stat().st_size
                except OSError:
                    is_dir, size = False, 0  # a dangling link: listed by name only
                if is_ignored(entry.name, is_dir):
                    ignored += 1
                    continue
                entries.append(ListingEntry(entry.name, is_dir, size))
        entries.sort(key=lambda e: (not e.is_dir, e.name.lower(), e.name))
        return entries, ignored
