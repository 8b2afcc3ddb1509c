"""The `read_many_files` tool (ReadManyFiles): many files by path or glob, one `--- path ---` section each."""

from __future__ import annotations

import asyncio
import base64
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, ClassVar

from pydantic import Field

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.display import FileList
from gemini_tui.core.ground.parts import InlineDataPart, Part, TextPart
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.tooling.progress import ProgressReporter, files_found, files_read
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams
from gemini_tui.tools.read_file import MAX_FILE_BYTES, text_result
from gemini_tui.tools.workspace import FileType, Workspace, WorkspaceError, mime_type_of, sniff_bytes
from gemini_tui.tools.workspace.glob_pattern import GlobPattern, compile_glob, has_magic
from gemini_tui.tools.workspace.text_file import decode_text

MAX_TOTAL_CHARS = 1_000_000  # about a quarter of a million tokens: past it the rest is listed, not read
END_MARKER = "--- End of content ---"
# Applied unless useDefaultExcludes is false: build output, caches, dependencies, editor state, secrets.
DEFAULT_EXCLUDED_DIRS = frozenset({
    ".git", ".hg", ".svn", "node_modules", "bower_components", ".venv", "venv", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".tox", "dist", "build", "coverage", ".idea", ".vscode", ".next",
})
DEFAULT_EXCLUDED_FILES = tuple(compile_glob(p) for p in (
    "*.pyc", "*.pyo", "*.class", "*.o", "*.so", "*.dll", "*.dylib", "*.exe", "*.bin", "*.zip", "*.tar", "*.gz",
    "*.7z", "*.jar", "*.wasm", ".env", ".env.*", ".DS_Store", "*.log",
))


# an empty string among the paths is refused, as Gemini CLI's schema does ("must NOT have fewer than 1 characters")
NonEmpty = Annotated[str, Field(min_length=1)]


class ReadManyFilesParams(ToolParams):
    gemini_cli_names: ClassVar[dict[str, str | None]] = {"file_filtering_options": None}
    paths: list[NonEmpty] = Field(min_length=1, description="Files, directories or glob patterns, relative to the "
                                                       "root directory or absolute, e.g. ['src/**/*.ts', "
                                                       "'README.md'].")
    include: list[NonEmpty] | None = Field(default=None, description="More glob patterns of files to read.")
    exclude: list[str] | None = Field(default=None, description="Glob patterns of files to leave out.")
    recursive: bool = Field(default=True, description="Whether a directory is read with its subdirectories.")
    use_default_excludes: bool = Field(default=True, alias="useDefaultExcludes",
                                       description="Whether to leave out dependencies, build output, caches and "
                                                   "binaries (default true).")


@dataclass(frozen=True)
class _Skip:
    reason: str


@dataclass
class _Selection:
    """What the patterns found: files to read (and whether each was named explicitly) and what was skipped."""

    files: dict[Path, bool] = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)


class ReadManyFilesTool(BaseTool[ReadManyFilesParams]):
    name = "read_many_files"
    display_name = "ReadManyFiles"
    kind = ToolKind.read
    Params = ReadManyFilesParams
    description = (
        "Reads several files at once, named by paths, directories or glob patterns (e.g. 'src/**/*.py'), and "
        "returns their contents, each after a '--- /absolute/path ---' line. Dependencies, build output, "
        "caches and files ignored by .gitignore are left out by default. Images and PDF files are returned as "
        "data only when named explicitly (by name or extension); other binary files are skipped."
    )

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def check_params(self, params: ReadManyFilesParams) -> ToolError | None:
        if not any(p.strip() for p in params.paths):
            return ToolError(ToolErrorKind.invalid_params, "'paths' must name at least one file or pattern.")
        return None

    def get_description(self, params: ReadManyFilesParams) -> str:
        text = "Read files matching: " + ", ".join([*params.paths, *(params.include or ())])
        if params.exclude:
            text += " (excluding: " + ", ".join(params.exclude) + ")"
        return text

    async def _execute(self, params: ReadManyFilesParams, abort_signal: AbortSignal,
                       context: CallContext) -> ToolResult:
        # a big folder takes a while: its count goes to the live output (the queue row and the call's card)
        progress = ProgressReporter(context.on_output)
        return await asyncio.to_thread(self._run, params, abort_signal, progress)

    def _run(self, params: ReadManyFilesParams, abort_signal: AbortSignal,
             progress: ProgressReporter | None = None) -> ToolResult:
        progress = progress or ProgressReporter(None)
        patterns = [p.strip() for p in [*params.paths, *(params.include or ())] if p.strip()]
        selection = self._select(patterns, params, abort_signal, progress)
        parts: list[Part] = []
        text: list[str] = []
        read: list[str] = []
        skipped = list(selection.skipped)
        total = 0
        files = list(selection.files.items())
        for index, (path, explicit) in enumerate(files):
            if abort_signal.aborted:
                return ToolResult.failure(ToolErrorKind.cancelled, "read_many_files was cancelled.")
            progress.report(files_read(index, len(files)))
            rel = self.workspace.relative(path)
            section = self._section(path, rel, explicit, patterns)
            if isinstance(section, _Skip):
                skipped.append((rel, section.reason))
                continue
            size = len(section) if isinstance(section, str) else len(section.data)
            if total + size > MAX_TOTAL_CHARS and read:
                rest = [self.workspace.relative(p) for p, _ in files[index:]]
                skipped.extend((r, "total size limit reached") for r in rest)
                text.append(f"[read_many_files stopped at its limit of {MAX_TOTAL_CHARS} characters; "
                            f"{len(rest)} more file(s) were not read: {', '.join(rest[:20])}"
                            f"{' ...' if len(rest) > 20 else ''}. Read them with a narrower request.]\n")
                progress.report(files_read(index, len(files)) + " (size limit reached)", final=True)
                break
            total += size
            read.append(rel)
            if isinstance(section, str):
                text.append(f"--- {path} ---\n{section}\n\n")
            else:
                text.append(f"--- {path} ---\n")
                parts.extend([TextPart("".join(text)), section])
                text = []
        else:
            progress.report(files_read(len(files), len(files)), final=True)
        title = f"Read {len(read)} file(s)" + (f", skipped {len(skipped)}" if skipped else "")
        display = FileList(title, tuple(read), tuple(f"{rel} ({reason})" for rel, reason in skipped))
        if not read:
            message = "No files matching the criteria were found or all were skipped."
            if skipped:
                message += " Skipped: " + "; ".join(f"{rel} ({reason})" for rel, reason in skipped[:20])
            return ToolResult(message, display)
        text.append(END_MARKER)
        if not parts:
            return ToolResult("".join(text), display)
        return ToolResult([*parts, TextPart("".join(text))], display)

    def _section(self, path: Path, rel: str, explicit: bool, patterns: list[str]) -> str | InlineDataPart | _Skip:
        """The file's text as the model sees it, an inline data part, or why it is skipped."""
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                return _Skip("file too large")
            data = path.read_bytes()
        except OSError as exc:
            return _Skip(exc.strerror or "cannot read")
        match sniff_bytes(path.name, data[:4096]):
            case FileType.image | FileType.pdf:
                suffix = path.suffix.lower()
                asked = explicit or any((suffix and suffix in p.lower()) or path.name in p for p in patterns)
                if not asked:
                    return _Skip("image or PDF not named explicitly")
                return InlineDataPart(mime_type_of(path), base64.b64encode(data).decode("ascii"))
            case FileType.binary:
                return _Skip("binary file")
        result = text_result(path, rel, decode_text(data).content, None, None)
        return str(result.llm_content).removesuffix("\n")  # each section is followed by a blank line anyway

    def _select(self, patterns: list[str], params: ReadManyFilesParams, abort_signal: AbortSignal,
                progress: ProgressReporter) -> _Selection:
        selection = _Selection()
        root = self.workspace.root
        excludes = [compile_glob(p) for p in params.exclude or () if p.strip()]
        globs: list[GlobPattern] = []
        for pattern in patterns:
            if not has_magic(pattern) or self._names_a_file(pattern):
                try:
                    path = self.workspace.resolve(pattern, must_exist=True)
                except WorkspaceError as exc:
                    reason = "not found" if exc.kind is ToolErrorKind.file_not_found else "outside the root"
                    selection.skipped.append((pattern, reason))
                    continue
                if path.exists() and not path.is_dir() and not path.is_file():
                    selection.skipped.append((pattern, "not a regular file"))
                    continue
                if path.is_file():
                    if self._excluded(path, params, excludes, explicit=True):
                        selection.skipped.append((self.workspace.relative(path), "excluded"))
                    else:
                        selection.files.setdefault(path, True)
                    continue
                rel = self.workspace.relative(path)
                pattern = ("" if rel == "." else rel + "/") + ("**" if params.recursive else "*")
            elif os.path.isabs(pattern) or pattern.startswith("~"):
                prefix = str(root).rstrip(os.sep) + os.sep
                if not pattern.startswith(prefix):
                    selection.skipped.append((pattern, "outside the root"))
                    continue
                pattern = pattern[len(prefix):]
            if ".." in pattern.split("/"):
                selection.skipped.append((pattern, "outside the root"))
                continue
            globs.append(compile_glob(pattern))
        if not globs:
            return selection
        matched: list[Path] = []
        def wanted(name: str, rel: str) -> bool:
            return any(glob.wants(name, rel) for glob in globs)

        for found in self.workspace.scan(root, default_excludes=params.use_default_excludes,
                                         abort_signal=abort_signal, wanted=wanted):
            matched.append(Path(found.path))
            progress.report(files_found(len(matched)))
        for path in sorted(matched):
            if not self._excluded(path, params, excludes, explicit=False):
                selection.files.setdefault(path, False)
        return selection

    def _names_a_file(self, pattern: str) -> bool:
        """A pattern with glob characters that is also the name of an existing file (`a[1].txt`): the user
        meant that file, which as a glob would not even match itself."""
        try:
            return self.workspace.resolve(pattern, must_exist=True).is_file()
        except WorkspaceError:
            return False

    def _excluded(self, path: Path, params: ReadManyFilesParams, excludes: list[GlobPattern], *,
                  explicit: bool) -> bool:
        rel = self.workspace.relative(path)
        if any(glob.match(rel) for glob in excludes):
            return True
        if explicit:
            return self.workspace.is_ignored(path, False, respect_git_ignore=False, default_excludes=False)
        if not params.use_default_excludes:
            return False
        parts = rel.split("/")
        return (any(part in DEFAULT_EXCLUDED_DIRS for part in parts[:-1])
                or any(glob.match(rel) for glob in DEFAULT_EXCLUDED_FILES))
