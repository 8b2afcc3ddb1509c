"""The `glob` tool (FindFiles): files matching a glob pattern, newest-modified first."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path
from typing import ClassVar

from pydantic import Field, StrictBool

from gemini_tui.core.ground.abort import TIME_LIMIT, AbortSignal
from gemini_tui.core.ground.display import FileList
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams
from gemini_tui.tools.workspace import Workspace, WorkspaceError
from gemini_tui.tools.workspace.glob_pattern import compile_glob, has_magic

MAX_LISTED = 2000  # more paths than this would flood the model's context; the count is still reported
DEFAULT_TIME_LIMIT_S = 30.0  # a walk answers within this, with what it found by then and a notice


_GLOB_SPECIAL = re.compile(r"[*?\[\]{}\\]")

class GlobParams(ToolParams):
    gemini_cli_names: ClassVar[dict[str, str | None]] = {"dir_path": "path"}
    pattern: str = Field(description="The glob pattern to match, e.g. '**/*.py', 'src/**/*.{ts,tsx}', '*.md'. "
                                     "A pattern without '/' matches file names at any depth.")
    path: str | None = Field(default=None, description="The absolute path of the directory to search in. "
                                                       "Defaults to the root directory.")
    # strict: "true" or 1 is refused, as Gemini CLI's schema check does ("must be boolean")
    case_sensitive: StrictBool = Field(default=False,
                                       description="Whether the match is case-sensitive (default false).")
    respect_git_ignore: StrictBool = Field(default=True, description="Whether to skip files ignored by .gitignore "
                                                                     "(default true).")
    respect_gemini_ignore: StrictBool = Field(default=True, description="Whether to skip files ignored by "
                                                                        ".geminiignore (default true).")


class GlobTool(BaseTool[GlobParams]):
    name = "glob"
    display_name = "FindFiles"
    kind = ToolKind.search
    Params = GlobParams
    description = (
        "Finds files whose paths match a glob pattern (for example 'src/**/*.ts' or '*.md') and returns their "
        "absolute paths, the most recently modified first. Ignores .git, node_modules and files ignored by "
        ".gitignore or .geminiignore. Use it to locate files by name or extension."
    )

    def __init__(self, workspace: Workspace, *, time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> None:
        self.workspace = workspace
        self.time_limit_s = time_limit_s

    def check_params(self, params: GlobParams) -> ToolError | None:
        if not params.pattern.strip():
            return ToolError(ToolErrorKind.invalid_params, "The 'pattern' parameter must not be empty.")
        try:
            self.workspace.resolve(params.path or ".")
        except WorkspaceError as exc:
            return exc.as_tool_error()
        return None

    def get_description(self, params: GlobParams) -> str:
        where = ""
        if params.path:
            try:
                where = f" within {self.workspace.relative(self.workspace.resolve(params.path))}"
            except WorkspaceError:
                where = f" within {params.path}"
        return f"'{params.pattern}'{where}"

    async def _execute(self, params: GlobParams, abort_signal: AbortSignal, context: CallContext) -> ToolResult:
        try:
            directory = self.workspace.resolve(params.path or ".", must_exist=True)
        except WorkspaceError as exc:
            return ToolResult.failure(exc.kind, exc.message)
        if not directory.is_dir():
            return ToolResult.failure(ToolErrorKind.not_a_directory, f"Path is not a directory: {directory}")
        limited = abort_signal.child()  # the user's cancel, or the clock (which keeps what was found)
        clock = asyncio.get_running_loop().call_later(self.time_limit_s, limited.abort, TIME_LIMIT)
        try:
            if not params.path and self.workspace.included:  # no path: every workspace directory, as Gemini CLI
                paths = await asyncio.to_thread(self.find, self.workspace.roots, params, limited)
                where = ", ".join(map(str, self.workspace.roots))
            else:
                paths = await asyncio.to_thread(self.find, directory, params, limited)
                where = str(directory)
        finally:
            clock.cancel()
        if abort_signal.aborted:
            return ToolResult.failure(ToolErrorKind.cancelled, "glob was cancelled.")
        stopped = (f" The walk stopped at its time limit ({self.time_limit_s:g} s): these are the files found by "
                   "then. Use a narrower path or pattern to see everything." if limited.reason == TIME_LIMIT else "")
        if not paths:
            message = f'No files found matching pattern "{params.pattern}" within {where}{stopped}'
            return ToolResult(message, FileList(message, ()))
        shown = paths[:MAX_LISTED]
        header = (f'Found {len(paths)} file(s) matching "{params.pattern}" within {where}, '
                  f"sorted by modification time (newest first):{stopped}")
        lines = [header, *shown]
        if len(paths) > len(shown):
            lines.append(f"[{len(paths) - len(shown)} more files not listed; use a narrower pattern or path.]")
        title = f'{len(paths)} file(s) matching "{params.pattern}" in {self.workspace.relative(directory)}'
        display = FileList(title, tuple(self.workspace.relative(p) for p in shown))
        return ToolResult("\n".join(lines), display)

    def find(self, directory: Path | list[Path], params: GlobParams,
             abort_signal: AbortSignal | None = None) -> list[str]:
        """Absolute paths of the matching files under `directory` (or several), newest first (ties by path).
        Runs in a worker thread."""
        found: list[tuple[float, str]] = []
        for top in directory if isinstance(directory, list) else [directory]:
            pattern = params.pattern.strip()
            prefix = str(top).rstrip(os.sep) + os.sep
            if pattern.startswith(prefix):  # an absolute pattern under the searched directory
                pattern = pattern[len(prefix):]
            if has_magic(pattern) and os.path.isfile(os.path.join(top, pattern)):
                # the pattern names a file that exists (`file[1].txt`, `app/[id]/page.tsx`): match it literally
                pattern = _GLOB_SPECIAL.sub(r"\\\g<0>", pattern)
            glob = compile_glob(pattern, case_sensitive=params.case_sensitive)
            for item in self.workspace.scan(top, respect_git_ignore=params.respect_git_ignore,
                                            respect_gemini_ignore=params.respect_gemini_ignore,
                                            abort_signal=abort_signal, wanted=glob.wants):
                try:
                    found.append((-item.entry.stat().st_mtime, item.path))
                except OSError:
                    continue
        found.sort()
        return [path for _, path in found]
