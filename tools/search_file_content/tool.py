"""The `search_file_content` tool (SearchText): a regex over the files of a directory, grouped by file.

Engine: ripgrep when found, else git grep in a repository, else a Python walk (`tools/grep_engines.py`); the
engines only pick candidate files, the lines are matched here, so the output is the same bytes from each.
Files are listed sorted by their path relative to the searched directory; lines in file order."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal, cast

from pydantic import Field

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.display import LineMatch, SearchMatches
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams
from gemini_tui.tools.search_file_content.engines import (
    TIME_LIMIT,
    CandidateGate,
    EngineUnavailable,
    SearchCancelled,
    find_ripgrep,
    git_grep_candidates,
    ripgrep_candidates,
    walk_candidates,
)
from gemini_tui.tools.search_file_content.pattern import GlobError, GrepPattern, IncludeGlob, PatternError
from gemini_tui.tools.workspace import FileType, Workspace, WorkspaceError, sniff_bytes
from gemini_tui.tools.workspace.text_file import decode_text

log = logging.getLogger(__name__)

MAX_MATCHES = 500
DEFAULT_TIME_LIMIT_S = 30.0  # a search answers within this, with what it found by then and a notice
Engine = Literal["rg", "git", "python"]


class SearchParams(ToolParams):
    gemini_cli_names: ClassVar[dict[str, str | None]] = {"dir_path": "path"}
    pattern: str = Field(description=r"The regular expression to search for (Python/ripgrep syntax, matched "
                                     r"case-insensitively, one line at a time), e.g. 'function\s+myFunction'.")
    path: str | None = Field(default=None, description="The absolute path of the directory to search. Defaults "
                                                       "to the root directory.")
    include: str | None = Field(default=None, description="A glob selecting the files to search, e.g. '*.js', "
                                                          "'src/**/*.{ts,tsx}'. Omit to search all files.")


@dataclass(frozen=True)
class _Found:
    matches: list[tuple[str, list[tuple[int, str]]]]  # (relative file, [(line, text)]), files sorted
    total: int
    truncated: bool
    stopped: bool = False  # the time limit ended it: the matches are what was found by then


class SearchFileContentTool(BaseTool[SearchParams]):
    name = "search_file_content"
    display_name = "SearchText"
    kind = ToolKind.search
    Params = SearchParams
    description = (
        "Searches for a regular expression in the content of files in a directory (default: the root), "
        "optionally only in files matching an include glob. Matching is case-insensitive and line by line; "
        ".gitignore, .geminiignore and binary files are skipped. Returns the matching lines with their file "
        f"paths (relative to the searched directory) and line numbers, at most {MAX_MATCHES} lines."
    )

    def __init__(self, workspace: Workspace, *, engine: Engine | None = None,
                 time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> None:
        """`engine` forces one engine (tests, benchmarks); by default the fastest available one is used."""
        self.workspace = workspace
        self.engine = engine
        self.time_limit_s = time_limit_s

    def check_params(self, params: SearchParams) -> ToolError | None:
        try:
            GrepPattern.compile(params.pattern)
            if params.include is not None:
                IncludeGlob.compile(params.include)
        except GlobError as exc:
            return ToolError(ToolErrorKind.invalid_params, str(exc))
        except PatternError as exc:
            return ToolError(ToolErrorKind.invalid_regex, str(exc))
        try:
            self._search_dir(params)
        except WorkspaceError as exc:
            return exc.as_tool_error()
        return None

    def _search_dir(self, params: SearchParams) -> Path:
        directory = self.workspace.resolve(params.path or ".", must_exist=True)
        if not directory.is_dir():
            raise WorkspaceError(ToolErrorKind.not_a_directory,
                                 f"Path is not a directory: {params.path}. Give a directory to search in.")
        return directory

    def get_description(self, params: SearchParams) -> str:
        text = f"'{params.pattern}'"
        if params.path:
            try:
                text += f" within {self.workspace.relative(self._search_dir(params))}"
            except WorkspaceError:
                text += f" within {params.path}"
        if params.include:
            text += f" in {params.include}"
        return text

    async def _execute(self, params: SearchParams, abort_signal: AbortSignal, context: CallContext) -> ToolResult:
        try:
            pattern = GrepPattern.compile(params.pattern)
            include = IncludeGlob.compile(params.include) if params.include is not None else None
            search_dir = self._search_dir(params)
        except GlobError as exc:
            return ToolResult.failure(ToolErrorKind.invalid_params, str(exc))
        except PatternError as exc:
            return ToolResult.failure(ToolErrorKind.invalid_regex, str(exc))
        except WorkspaceError as exc:
            return ToolResult.failure(exc.kind, exc.message)
        limited = abort_signal.child()  # the user's cancel, or the clock (which keeps what was found)
        clock = asyncio.get_running_loop().call_later(self.time_limit_s, limited.abort, TIME_LIMIT)
        try:
            found = await self.find(search_dir, pattern, include, limited)
            if not params.path:  # no path: the included directories too, as Gemini CLI searches its workspace
                for other in self.workspace.included:
                    more = await self.find(other, pattern, include, limited)
                    found = _Found(found.matches + [(str(other / rel), lines) for rel, lines in more.matches],
                                   found.total + more.total, found.truncated or more.truncated,
                                   found.stopped or more.stopped)
        except SearchCancelled:
            return ToolResult.failure(ToolErrorKind.cancelled, "The search was cancelled.")
        except EngineUnavailable as exc:
            return ToolResult.failure(ToolErrorKind.execution_failed, f"Search engine {self.engine} failed: {exc}")
        finally:
            clock.cancel()
        if limited.reason == TIME_LIMIT and not found.stopped:
            found = dataclasses.replace(found, stopped=True)
        shown_dir = params.path if params.path else "."
        where = f'for pattern "{params.pattern}" in path "{shown_dir}"'
        if params.include:
            where += f' (filter: "{params.include}")'
        display = SearchMatches(params.pattern, shown_dir, params.include, tuple(
            LineMatch(rel, number, text) for rel, lines in found.matches for number, text in lines))
        stopped = (f" The search stopped at its time limit ({self.time_limit_s:g} s): these are the matches found "
                   "by then. Narrow the path or include to search everything." if found.stopped else "")
        if not found.total:
            return ToolResult(f"No matches found {where}.{stopped}", display)
        header = f"Found {found.total} match(es) {where}"
        if found.truncated:
            header += (f" (results limited to {MAX_MATCHES} matches; narrow the pattern, path or include to see "
                       "the rest)")
        out = [header + ":" + stopped, "---"]
        for rel, lines in found.matches:
            out.append(f"File: {rel}")
            out.extend(f"L{number}: {text}" for number, text in lines)
            out.append("---")
        return ToolResult("\n".join(out), display)

    async def find(self, search_dir: Path, pattern: GrepPattern, include: IncludeGlob | None,
                   abort_signal: AbortSignal) -> _Found:
        """Candidates from the chosen engine (falling back when it cannot answer), then the lines, in order."""
        everyone: list[Engine] = ["rg", "git", "python"]
        order: list[Engine] = everyone if self.engine is None else [cast(Engine, self.engine)]
        for engine in order:
            try:
                if engine == "rg":
                    rg = find_ripgrep()
                    if rg is None:
                        raise EngineUnavailable("rg was not found next to the interpreter or on PATH")
                    candidates = await ripgrep_candidates(rg, search_dir, pattern, include, abort_signal)
                elif engine == "git":
                    candidates = await git_grep_candidates(self.workspace, search_dir, pattern, include, abort_signal)
                else:
                    candidates = await asyncio.to_thread(
                        walk_candidates, self.workspace, search_dir, include, abort_signal)
                    return await asyncio.to_thread(self._collect, search_dir, candidates, pattern, None,
                                                   abort_signal, None)
            except EngineUnavailable as exc:
                if self.engine:
                    raise
                log.debug("search engine %s unavailable: %s", engine, exc)
                continue
            gate = CandidateGate(self.workspace, search_dir, trust_gitignore=engine == "rg" and include is None)
            return await asyncio.to_thread(self._collect, search_dir, candidates, pattern, include, abort_signal,
                                           gate)
        raise AssertionError("the Python engine is always available")

    def _collect(self, search_dir: Path, candidates: list[str], pattern: GrepPattern, include: IncludeGlob | None,
                 abort_signal: AbortSignal, gate: CandidateGate | None) -> _Found:
        matches: list[tuple[str, list[tuple[int, str]]]] = []
        total = 0
        for rel in sorted(set(candidates)):
            if abort_signal.aborted:
                if abort_signal.reason == TIME_LIMIT:
                    return _Found(matches, total, False, stopped=True)
                raise SearchCancelled
            if include is not None and not include.matches(rel):
                continue
            if gate is not None and not gate.admits(rel):
                continue
            try:
                with open(os.path.join(search_dir, rel), "rb") as handle:
                    head = handle.read(4096)
                    if sniff_bytes(rel, head) is not FileType.text:
                        continue
                    data = head + handle.read()
            except OSError:
                continue
            limit = MAX_MATCHES - total + 1
            if pattern.literals and data.isascii():
                lines = pattern.search_ascii(data, limit)
            else:
                lines = pattern.search_lines(decode_text(data).content, limit)
            if not lines:
                continue
            if total + len(lines) > MAX_MATCHES:
                lines = lines[:MAX_MATCHES - total]
                matches.append((rel, lines))
                return _Found(matches, MAX_MATCHES, True)
            matches.append((rel, lines))
            total += len(lines)
        return _Found(matches, total, False)
