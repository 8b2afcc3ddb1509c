"""What search_file_content looks for: the regex (Python `re` dialect, one line at a time) and the include glob.

Python's `re` is the reference for every engine: ripgrep and git grep only pick candidate files (they are asked
for a superset), and every reported line is matched again here, so all engines print the same bytes."""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass

from gemini_tui.tools.workspace.glob_pattern import expand_braces, translate_glob

MAX_LINE_CHARS = 500
_LINE_CONTEXT_BEFORE = 100

# What can match a character that a byte-level engine sees as invalid UTF-8 (a cp1252 file decoded by Python), or
# means more in Python's Unicode classes than in git grep -P: such patterns need a wider net in ripgrep.
_BYTES_UNSAFE = re.compile(r"\\[wWdDsSBuUN]|\\x[89a-fA-F]|\\[0-3][0-7]{2}|\[\^|(?<!\\)\.")
# Lookaround and backreferences: ripgrep needs PCRE2 for them.
_NEEDS_PCRE = re.compile(r"\(\?<?[=!]|\\[1-9]|\(\?P=")
# Constructs that look outside one line when the whole file is searched at once (prefiltering would be wrong).
_WHOLE_FILE_UNSAFE = re.compile(r"\\[AZz]|\(\?<|\(\?=|\(\?!")
# Syntax ripgrep and git read differently from Python: text anchors (they anchor at the file, not the line) and
# `{,n}`; Python's FutureWarning marks the rest (`[[:alpha:]]`, `&&`, `--` in sets).
_NOT_PORTABLE = re.compile(r"\\[AZ]|(?<!\\)\{,")


class PatternError(ValueError):
    """The regex cannot be used (invalid, or it would match across lines)."""


class GlobError(PatternError):
    """The include glob cannot be used."""


@dataclass(frozen=True)
class GrepPattern:
    """A validated, case-insensitive, line-oriented regular expression."""

    source: str
    regex: re.Pattern[str]
    whole_file: re.Pattern[str] | None  # a prefilter for whole files, when it cannot miss a line's match
    literals: tuple[bytes, ...] = ()  # every match contains one of these (lowercase ASCII): a fast path
    portable: bool = True  # ripgrep and git grep read it as Python does (else only the Python engine answers)

    @classmethod
    def compile(cls, source: str) -> GrepPattern:
        if not source:
            raise PatternError("The pattern must not be empty.")
        if "\n" in source or "\\n" in source.replace("\\\\", ""):
            raise PatternError(
                f"The pattern {source!r} contains a line break (\\n); search_file_content matches one line at a "
                "time. Search for one line of the text instead.")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                items = _parse(source)  # not cached by `re`, so its warnings come every time
                regex = re.compile(source, re.IGNORECASE)
            except re.error as exc:
                raise PatternError(
                    f"Invalid regular expression pattern: {source!r}: {exc}. Use Python/ripgrep regex syntax and "
                    "escape literal characters such as ( [ { . * + ? with a backslash.") from None
            whole = None
            if not _WHOLE_FILE_UNSAFE.search(source):
                whole = re.compile(source, re.IGNORECASE | re.MULTILINE)
        portable = not _NOT_PORTABLE.search(source.replace("\\\\", "")) and not any(
            issubclass(w.category, FutureWarning) for w in caught)
        return cls(source, regex, whole, _required_literals(items), portable)

    @property
    def bytes_safe(self) -> bool:
        """Whether a byte-level engine finds every line Python's `re` finds, in any encoding: an ASCII pattern
        without `.`, negated classes or the Unicode classes (`\\w`, `\\s`, `\\d`, ...)."""
        return self.source.isascii() and not _BYTES_UNSAFE.search(self.source.replace("\\\\", ""))

    @property
    def needs_pcre(self) -> bool:
        return bool(_NEEDS_PCRE.search(self.source.replace("\\\\", "")))

    def search_lines(self, content: str, limit: int) -> list[tuple[int, str]]:
        """(1-based line number, shown text) of the first `limit` matching lines of `content` (any endings)."""
        text = content.replace("\r\n", "\n") if "\r" in content else content
        if self.whole_file is None:
            return self._each_line(text, limit)
        # Search the whole text, check only the line where a match starts, then go on from the next line: a
        # line's own match is found there at the latest, so no line is skipped and few lines are looked at.
        found: list[tuple[int, str]] = []
        number, counted_to, position, size = 1, 0, 0, len(text)
        while len(found) < limit:
            match = self.whole_file.search(text, position)
            if match is None:
                break
            line_start = text.rfind("\n", 0, match.start()) + 1
            if line_start == size:
                break  # the empty text after the last newline (or of an empty file) is not a line
            line_end = text.find("\n", match.start())
            if line_end < 0:
                line_end = size
            number += text.count("\n", counted_to, line_start)
            counted_to = line_start
            line = text[line_start:line_end]
            own = self.regex.search(line)
            if own is not None:
                found.append((number, shown_line(line, own.start())))
            position = line_end + 1
            if position > size:
                break
        return found

    def search_ascii(self, data: bytes, limit: int) -> list[tuple[int, str]]:
        """`search_lines` for ASCII bytes and a pattern with required literals: find the next literal in the
        lowercased bytes (exact for ASCII, and the bytes are the text), then check that line."""
        assert self.literals
        lowered = data.lower()
        found: list[tuple[int, str]] = []
        number, counted_to, position, size = 1, 0, 0, len(data)
        upcoming = [lowered.find(literal) for literal in self.literals]  # next occurrence of each, -1 for none
        while len(found) < limit:
            for index, literal in enumerate(self.literals):
                if 0 <= upcoming[index] < position:
                    upcoming[index] = lowered.find(literal, position)
            hit = min((at for at in upcoming if at >= 0), default=-1)
            if hit < 0:
                break
            line_start = data.rfind(b"\n", 0, hit) + 1
            line_end = data.find(b"\n", hit)
            if line_end < 0:
                line_end = size
            number += data.count(b"\n", counted_to, line_start)
            counted_to = line_start
            raw = data[line_start:line_end]
            line = (raw[:-1] if raw.endswith(b"\r") and line_end < size else raw).decode("ascii")
            own = self.regex.search(line)
            if own is not None:
                found.append((number, shown_line(line, own.start())))
            position = line_end + 1
        return found

    def _each_line(self, text: str, limit: int) -> list[tuple[int, str]]:
        found: list[tuple[int, str]] = []
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()  # the text after the last newline is not a line
        for number, line in enumerate(lines, start=1):
            match = self.regex.search(line)
            if match is None:
                continue
            found.append((number, shown_line(line, match.start())))
            if len(found) >= limit:
                break
        return found


def _parse(source: str) -> list[tuple[object, object]] | None:
    """The stdlib's own parse tree of the pattern, or None if its private parser is not there (or raises
    something else than re.error, which compile reports)."""
    try:
        from re import _parser as parser  # pyright: ignore[reportAttributeAccessIssue]  # private, there since 3.11
    except ImportError:
        return None
    try:
        return list(parser.parse(source, re.IGNORECASE))
    except re.error:
        raise
    except Exception:
        return None


def _required_literals(items: list[tuple[object, object]] | None) -> tuple[bytes, ...]:
    """Plain ASCII runs (2+ characters, lowercased) one of which every match contains, read from the parse tree
    (exact about what is optional): the longest run of the pattern, or one per alternative of a top-level
    `a|b`. Empty when there is no such set."""
    try:
        from re import _constants as codes  # pyright: ignore[reportAttributeAccessIssue]  # private, there since 3.11
    except ImportError:
        return ()
    if items is None:
        return ()

    def longest_run(sequence: list[tuple[object, object]]) -> str:
        best, run = "", ""
        for op, value in sequence:
            if op == codes.LITERAL and isinstance(value, int) and value < 128:
                run += chr(value)
                continue
            best, run = max(best, run, key=len), ""
        return max(best, run, key=len)

    if len(items) == 1 and items[0][0] == codes.BRANCH:
        runs = [longest_run(list(branch)) for branch in items[0][1][1]]  # type: ignore[index]
    else:
        runs = [longest_run(items)]
    if not runs or any(len(run) < 2 for run in runs):
        return ()
    return tuple(dict.fromkeys(run.lower().encode() for run in runs))


def shown_line(line: str, match_start: int) -> str:
    """The line, cut to MAX_LINE_CHARS around the match when longer (minified files)."""
    if len(line) <= MAX_LINE_CHARS:
        return line
    begin = max(0, match_start - _LINE_CONTEXT_BEFORE)
    cut = line[begin:begin + MAX_LINE_CHARS]
    return f"{'...' if begin else ''}{cut}... [line truncated: {len(line)} characters]"


def include_regex(glob: str) -> str:
    """A file-path glob as ripgrep's `--glob` reads it: without a slash it matches a file name at any depth
    (`*.ts`), with one it is anchored at the searched directory (`src/**/*.ts`)."""
    anchored = "/" in glob
    return ("" if anchored else "(?:.*/)?") + translate_glob(glob.lstrip("/"))


@dataclass(frozen=True)
class IncludeGlob:
    """The include filter: brace alternatives expanded (`*.{ts,tsx}`), each matched against the file's path
    relative to the searched directory (see `glob_regex`); a trailing `/` means everything below."""

    source: str
    globs: tuple[str, ...]
    regex: re.Pattern[str]

    @classmethod
    def compile(cls, source: str) -> IncludeGlob:
        globs = tuple(g.strip() + ("**" if g.strip().endswith("/") else "")
                      for g in expand_braces(source.strip()) if g.strip())
        if not globs or any(g.startswith("!") for g in globs):
            raise GlobError(f"Invalid include glob: {source!r}. Give a glob such as '*.py' or 'src/**/*.{{ts,tsx}}'.")
        try:
            regex = re.compile("|".join(f"(?:{include_regex(glob)})" for glob in globs))
        except re.error as exc:
            raise GlobError(f"Invalid include glob: {source!r}: {exc}") from None
        return cls(source, globs, regex)

    def matches(self, relative: str) -> bool:
        return self.regex.fullmatch(relative) is not None

    def git_pathspecs(self) -> list[str]:
        """Pathspecs that select at least the same files for git grep (run in the searched directory)."""
        specs = []
        for glob in self.globs:
            body = glob.rstrip("/")
            anchored = "/" in body
            specs.append(":(glob)" + (body.lstrip("/") if anchored else f"**/{body}"))
        return specs
