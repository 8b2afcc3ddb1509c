"""The `write_file` tool (WriteFile): create or overwrite a file after the user reviewed the diff."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import Field

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import EditConfirmation
from gemini_tui.core.ground.display import FileDiff
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.tooling.needs import CallNeeds
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams
from gemini_tui.tools.workspace import Workspace, WorkspaceError
from gemini_tui.tools.workspace.confined import OutsideRootError
from gemini_tui.tools.workspace.text_file import TextFile, read_text, write_text
from gemini_tui.tools.workspace.writable import after_approval, led_out, read_only_reason, unavailable


class WriteFileParams(ToolParams):
    file_path: str = Field(description="The absolute path of the file to write (a path relative to the root "
                                       "directory also works). Missing parent directories are created.")
    content: str = Field(description="The complete content to write to the file.")


class WriteFileTool(BaseTool[WriteFileParams]):
    name = "write_file"
    display_name = "WriteFile"
    kind = ToolKind.edit
    Params = WriteFileParams
    description = (
        "Writes content to a file, replacing it if it exists and creating it (and missing parent directories) "
        "if not. An existing file keeps its encoding and line endings. The user reviews the change as a diff "
        "before it is written. To change part of a file, prefer the replace tool."
    )

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def check_params(self, params: WriteFileParams) -> ToolError | None:
        try:
            path = self.workspace.resolve(params.file_path)
        except WorkspaceError as exc:
            return exc.as_tool_error()
        if path == self.workspace.root:
            return ToolError(ToolErrorKind.is_a_directory, f"Path is the root directory, not a file: {path}")
        return None

    def needs(self, params: WriteFileParams) -> CallNeeds:
        try:
            path = str(self.workspace.resolve(params.file_path))
        except WorkspaceError:
            path = params.file_path
        return CallNeeds(edit=True, writes=(path,))

    def get_description(self, params: WriteFileParams) -> str:
        try:
            return f"Write to {self.workspace.relative(self.workspace.resolve(params.file_path))}"
        except WorkspaceError:
            return f"Write to {params.file_path}"

    def with_new_content(self, params: WriteFileParams, new_content: str, original: str) -> WriteFileParams:
        return params.model_copy(update={"content": new_content})

    async def should_confirm_execute(self, params: WriteFileParams,
                                     abort_signal: AbortSignal) -> EditConfirmation | None:
        try:
            path = self.workspace.resolve(params.file_path)
        except WorkspaceError:
            return None  # execute reports it
        if await asyncio.to_thread(_target_problem, path) is not None:
            return None

        root = self.workspace.root_for(path)
        existed = path.exists()

        async def refresh() -> FileDiff:
            # what happened to the file, named (a directory now, read-only, ...); a file deleted or created
            # meanwhile is a new diff (the review says what that means)
            problem = await asyncio.to_thread(unavailable, path, root, existed=existed)
            if problem is not None and problem.kind not in ("deleted", "created"):
                raise problem
            return await asyncio.to_thread(self._diff, path, params.content)

        diff = await refresh()
        return EditConfirmation(f"Confirm Write: {diff.file_name}", str(path), diff, refresh)

    def _diff(self, path: Path, content: str) -> FileDiff:
        current = _current(path, self.workspace.root_for(path))
        return FileDiff.between(str(path), current.content if current else "", content,
                                display_name=self.workspace.relative(path), is_new_file=current is None)

    async def _execute(self, params: WriteFileParams, abort_signal: AbortSignal, context: CallContext) -> ToolResult:
        try:
            path = self.workspace.resolve(params.file_path)
        except WorkspaceError as exc:
            if context.reviewed_content is not None and exc.kind is ToolErrorKind.path_outside_root:
                return after_approval(params.file_path, led_out(self.workspace.root))  # (inside when reviewed)
            return ToolResult.failure(exc.kind, exc.message)
        existed = context.reviewed_existed if context.reviewed_existed is not None else \
            context.reviewed_content != ""
        return await asyncio.to_thread(self._write, path, params.content, context.reviewed_content, existed)

    def _write(self, path: Path, content: str, reviewed: str | None, existed: bool = True) -> ToolResult:
        # approved: what stops it now is said as what happened since the review
        since = unavailable(path, self.workspace.root_for(path), existed=existed) if reviewed is not None else None
        if since is not None:
            return after_approval(path, since)
        problem = _target_problem(path)
        if problem is not None:
            return ToolResult.failure(problem.kind, problem.message)
        try:
            current = _current(path, self.workspace.root_for(path))
            original = current.content if current else ""
            if reviewed is not None and original != reviewed:
                return ToolResult.failure(
                    ToolErrorKind.file_changed,
                    f"File changed on disk after the user reviewed the change, so nothing was written: {path}. "
                    "Read the file again and write it again.")
            write_text(path, content, current, root=self.workspace.root_for(path))
        except OutsideRootError as exc:
            return ToolResult.failure(ToolErrorKind.path_outside_root,
                                      f"Nothing was written to {path}: {exc.strerror}. Use a path inside the root "
                                      "directory whose folders are not links.")
        except PermissionError as exc:
            why = f" ({exc.strerror})" if exc.strerror and "read-only" in exc.strerror else ""
            return ToolResult.failure(ToolErrorKind.permission_denied, f"Permission denied: {path}{why}")
        except OSError as exc:
            return ToolResult.failure(ToolErrorKind.execution_failed, f"Cannot write {path}: {exc.strerror or exc}")
        message = (f"Successfully overwrote file: {path}" if current is not None
                   else f"Successfully created and wrote to new file: {path}")
        display = FileDiff.between(str(path), original, content, display_name=self.workspace.relative(path),
                                   is_new_file=current is None)
        return ToolResult(message, display)


def _current(path: Path, root: Path) -> TextFile | None:
    try:
        return read_text(path, root=root)
    except FileNotFoundError:
        return None


def _target_problem(path: Path) -> ToolError | None:
    """Why `path` cannot be written as a file: it is a directory, or one of its parents is not."""
    if path.is_dir():
        return ToolError(ToolErrorKind.is_a_directory, f"Path is a directory, not a file: {path}")
    if path.exists() and not path.is_file():
        return ToolError(ToolErrorKind.invalid_params, f"Not a regular file, so it is not replaced: {path}")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                return ToolError(ToolErrorKind.not_a_directory,
                                 f"Cannot write {path}: {parent} is a file, not a directory.")
            break
    # known before the user is asked: a review of a write that cannot happen would end in a refusal
    if (reason := read_only_reason(path)) is not None:
        return ToolError(ToolErrorKind.permission_denied,
                         f"Cannot write {path}: {reason}. Nothing was written and the user was not asked. Tell the "
                         "user; they can make it writable if they want this change.")
    return None
