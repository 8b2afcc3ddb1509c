"""Display objects: what a tool shows the user (`ToolResult.return_display`). The app maps each type to a widget."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field


@dataclass(frozen=True)
class FileDiff:
    """A change to one file: both contents and the unified diff between them."""

    file_name: str
    file_path: str
    original_content: str
    new_content: str
    diff: str
    lines_added: int
    lines_removed: int
    is_new_file: bool = False

    @classmethod
    def between(cls, file_path: str, original: str, new: str, *, display_name: str | None = None,
                is_new_file: bool = False) -> FileDiff:
        name = display_name or file_path.rsplit("/", 1)[-1]
        lines = list(difflib.unified_diff(
            original.splitlines(keepends=True), new.splitlines(keepends=True),
            fromfile=f"{name}\tCurrent", tofile=f"{name}\tProposed", n=3,
        ))
        # difflib leaves a line without a final newline unterminated; end every line so the text parses.
        diff = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
        added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
        removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
        return cls(name, file_path, original, new, diff, added, removed, is_new_file)

    def first_change(self) -> tuple[str, str]:
        """The first removed line and the first added line of the diff ("" when there is none)."""
        removed = added = ""
        for line in self.diff.splitlines():
            if line.startswith(("---", "+++")):
                continue
            if line.startswith("-") and not removed:
                removed = line[1:]
            elif line.startswith("+") and not added:
                added = line[1:]
            if removed and added:
                break
        return removed, added


@dataclass(frozen=True)
class ListingEntry:
    name: str
    is_dir: bool
    size: int = 0


@dataclass(frozen=True)
class DirectoryListing:
    path: str
    entries: tuple[ListingEntry, ...]
    ignored_count: int = 0


@dataclass(frozen=True)
class FileList:
    """Paths found by a search (glob, read_many_files), in the tool's order."""

    title: str
    paths: tuple[str, ...]
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True)
class LineMatch:
    file: str
    line: int
    text: str


@dataclass(frozen=True)
class SearchMatches:
    pattern: str
    path: str
    include: str | None
    matches: tuple[LineMatch, ...]


@dataclass(frozen=True)
class FileContent:
    """A file (or part of one) that was read: shown highlighted by its name."""

    path: str
    content: str
    first_line: int = 1
    total_lines: int = 0
    truncated: bool = False


@dataclass(frozen=True)
class ShellOutput:
    command: str
    directory: str
    output: str
    exit_code: int | None = None
    signal: str | None = None
    timed_out: bool = False
    cancelled: bool = False
    saved_to: str | None = None
    background_pids: tuple[int, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class ErrorDisplay:
    kind: str
    message: str


# ----- web and MCP displays (issue 5) ---------------------------------------------------------------------------
@dataclass(frozen=True)
class FetchedPage:
    """One URL fetched by web_fetch: its readable text (HTML turned into Markdown-ish text) or why it failed."""

    url: str
    final_url: str = ""
    status: int | None = None
    content_type: str = ""
    title: str = ""
    text: str = ""
    truncated: bool = False
    error: str | None = None


@dataclass(frozen=True)
class WebPage:
    """What web_fetch shows: the user's prompt and every page it fetched."""

    prompt: str
    pages: tuple[FetchedPage, ...]


@dataclass(frozen=True)
class SearchSource:
    title: str
    url: str


@dataclass(frozen=True)
class SearchAnswer:
    """google_web_search: the grounded answer (citation markers like [1] inserted) and its numbered sources."""

    query: str
    answer: str
    sources: tuple[SearchSource, ...] = ()


@dataclass(frozen=True)
class McpImage:
    mime_type: str
    data: str  # base64


@dataclass(frozen=True)
class McpResult:
    """An MCP tool's result: its text (resources inlined), images, and whether the server reported an error."""

    server: str
    tool: str
    text: str
    images: tuple[McpImage, ...] = ()
    is_error: bool = False

@dataclass(frozen=True)
class Todo:
    description: str
    status: str  # pending, in_progress, completed, cancelled, blocked


@dataclass(frozen=True)
class TodoList:
    """`write_todos`: the whole list as it is now (each call replaces it)."""

    todos: tuple[Todo, ...]


@dataclass(frozen=True)
class AgentReport:
    """`invoke_agent`: how a subagent's run ended (a Gemini CLI termination reason: GOAL, MAX_TURNS, TIMEOUT, ...)
    and the result it handed back; `text` is what the session's model received."""

    agent: str
    reason: str
    result: str
    turns: int
    duration_s: float
    text: str


Display = (
    str | FileDiff | DirectoryListing | FileList | SearchMatches | FileContent | ShellOutput | ErrorDisplay | object
)
