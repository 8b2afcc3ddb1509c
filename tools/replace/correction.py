"""Planning a `replace` edit: the exact match, then a deterministic correction ladder; pure functions, no I/O.

When `old_string` is not found verbatim, these fixes are tried in order, each on its own and after unescaping
over-escaped strings: line endings (LF text against CRLF regions), trailing whitespace, indentation (a
constant shift, tabs for spaces or the reverse; `new_string` is re-indented to match), then whitespace-flexible
matching (non-blank lines equal once all whitespace is removed, blank lines between them free) and the same with
quote styles equal. The flexible tiers write the lines new_string keeps from old_string as the file has them. A
correction is used only when it finds exactly the expected number of places, so it can fail but never pick a
different place than an exact match would have (the model tier, tools/replace/model_tier.py, comes after)."""

from __future__ import annotations

import bisect
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import cached_property

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "`": "`", "\\": "\\", "\n": "\n"}
_TAB_SIZES = (4, 8, 2)


@dataclass(frozen=True)
class EditPlan:
    """The file content after the edit, how many places changed, and the correction used (None: exact)."""

    new_content: str
    occurrences: int
    correction: str | None = None


@dataclass(frozen=True)
class EditMiss:
    """Why no plan: `found` exact occurrences (not the expected number), or `ambiguous` corrected ones, and the
    file region closest to `old_string` (1-based first and last line, and its text)."""

    found: int
    ambiguous: int = 0
    closest: tuple[int, int, str] | None = None


def unescape(text: str) -> str:
    """Undo one level of string escaping (`\\n`, `\\t`, `\\"`, `\\\\`, ...), the way a model over-escapes."""
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text) and text[i + 1] in _ESCAPES:
            out.append(_ESCAPES[text[i + 1]])
            i += 2
        else:
            out.append(char)
            i += 1
    return "".join(out)


# A matcher finds non-overlapping places of `old` in LF-only text and returns (start, end, replacement) for each.
Span = tuple[int, int, str]
Matcher = Callable[["_Lines", str, str], list[Span]]


class _Lines:
    """LF-only text split into lines, with the offset where each line starts."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self.starts: list[int] = []
        offset = 0
        for line in self.lines:
            self.starts.append(offset)
            offset += len(line) + 1

    @cached_property
    def where(self) -> dict[str, list[int]]:
        """Each stripped line and the indexes where it occurs: where a whole-line match can start."""
        index: dict[str, list[int]] = defaultdict(list)
        for number, line in enumerate(self.lines):
            index[line.strip()].append(number)
        return index


def _exact(view: _Lines, old: str, new: str) -> list[Span]:
    spans: list[Span] = []
    start = view.text.find(old)
    while start >= 0:
        spans.append((start, start + len(old), new))
        start = view.text.find(old, start + len(old))
    return spans


def _old_lines(old: str) -> tuple[list[str], bool]:
    """The lines of `old` and whether it ends with a newline (then the match takes the file's newline too)."""
    ends_with_newline = old.endswith("\n")
    lines = (old[:-1] if ends_with_newline else old).split("\n")
    return lines, ends_with_newline


def _line_windows(view: _Lines, old: str, new: str,
                  match: Callable[[list[str], list[str]], Callable[[str], str] | None]) -> list[Span]:
    """Whole-line matching: `match(file_lines, old_lines)` returns how to rewrite `new` for that window, or None."""
    olines, ends_with_newline = _old_lines(old)
    k = len(olines)
    last_start = len(view.lines) - k - (1 if ends_with_newline else 0)
    key = next((j for j, line in enumerate(olines) if line.strip()), None)
    if key is None:
        return []
    spans: list[Span] = []
    free_from = 0
    # every matcher keeps a line's stripped text, so a window can only start where the first non-blank line fits
    for found_at in view.where.get(olines[key].strip(), ()):
        i = found_at - key
        if i < free_from or i > last_start:
            continue
        rewrite = match(view.lines[i:i + k], olines)
        if rewrite is None:
            continue
        start = view.starts[i]
        end = view.starts[i + k] if ends_with_newline else view.starts[i + k - 1] + len(view.lines[i + k - 1])
        spans.append((start, end, rewrite(new)))
        free_from = i + k
    return spans


def _trailing_whitespace(view: _Lines, old: str, new: str) -> list[Span]:
    def match(flines: list[str], olines: list[str]) -> Callable[[str], str] | None:
        for f, o in zip(flines, olines, strict=True):
            if f.rstrip() != o.rstrip():
                return None
        # the lines new_string keeps from old_string are written as the file has them (no stray trailing spaces)
        return lambda text: _keep_file_lines(text, olines, flines, str.rstrip, False)

    return _line_windows(view, old, new, match)


def _split_indent(line: str) -> tuple[str, str]:
    rest = line.lstrip(" \t")
    return line[:len(line) - len(rest)], rest


def _indentation(tab_size: int) -> Matcher:
    """Lines equal apart from indentation that is shifted by one constant width (tabs counted as `tab_size`)."""

    def matcher(view: _Lines, old: str, new: str) -> list[Span]:
        def match(flines: list[str], olines: list[str]) -> Callable[[str], str] | None:
            shift: int | None = None
            use_tabs = False
            for f, o in zip(flines, olines, strict=True):
                if not o.strip():
                    if f.strip():
                        return None
                    continue
                f_ws, f_rest = _split_indent(f.rstrip())
                o_ws, o_rest = _split_indent(o.rstrip())
                if f_rest != o_rest:
                    return None
                delta = len(f_ws.expandtabs(tab_size)) - len(o_ws.expandtabs(tab_size))
                if shift is None:
                    shift = delta
                elif delta != shift:
                    return None
                use_tabs = use_tabs or "\t" in f_ws
            if shift is None:
                return None
            return lambda text: reindent(text, shift, tab_size, use_tabs)

        return _line_windows(view, old, new, match)

    return matcher


def reindent(text: str, shift: int, tab_size: int, use_tabs: bool) -> str:
    """Shift every non-blank line of `text` by `shift` columns, written with tabs or spaces like the file."""
    out = []
    for line in text.split("\n"):
        if not line.strip():
            out.append(line)
            continue
        ws, rest = _split_indent(line)
        width = max(0, len(ws.expandtabs(tab_size)) + shift)
        indent = "\t" * (width // tab_size) + " " * (width % tab_size) if use_tabs else " " * width
        out.append(indent + rest)
    return "\n".join(out)


_SPACE = re.compile(r"\s+")


def _squash(line: str) -> str:
    """A line without any whitespace: `function  myFunc( a, b )` and `function myFunc(a, b)` agree."""
    return _SPACE.sub("", line)


def _squash_quotes(line: str) -> str:
    return _squash(line).replace('"', "'").replace("`", "'")


def _flexible(normalize: Callable[[str], str]) -> Matcher:
    """Non-blank lines equal once `normalize`d (blank lines between them may differ in number). The matched
    region's own text replaces every line of `new_string` that is one of `old_string`'s lines, so what the
    edit keeps stays as the file had it; the lines it changes are shifted by the first line's indentation."""

    def matcher(view: _Lines, old: str, new: str) -> list[Span]:
        olines, ends_with_newline = _old_lines(old)
        wanted = [normalize(line) for line in olines if line.strip()]
        if not wanted or not any(wanted):
            return []
        index: dict[str, list[int]] = defaultdict(list)
        for number, line in enumerate(view.lines):
            if line.strip():
                index[normalize(line)].append(number)
        spans: list[Span] = []
        free_from = 0
        for start in index.get(wanted[0], ()):
            if start < free_from:
                continue
            matched = [start]
            cursor = start + 1
            for target in wanted[1:]:
                while cursor < len(view.lines) and not view.lines[cursor].strip():
                    cursor += 1
                if cursor >= len(view.lines) or normalize(view.lines[cursor]) != target:
                    break
                matched.append(cursor)
                cursor += 1
            if len(matched) != len(wanted):
                continue
            last = matched[-1]
            if ends_with_newline and last + 1 >= len(view.lines):
                continue
            kept_old = [line for line in olines if line.strip()]
            use_tabs = view.lines[start].startswith("\t")
            begin = view.starts[start]
            end = view.starts[last + 1] if ends_with_newline else view.starts[last] + len(view.lines[last])
            rewritten = _keep_file_lines(new, kept_old, [view.lines[n] for n in matched], normalize, use_tabs)
            spans.append((begin, end, rewritten))
            free_from = last + 1
        return spans

    return matcher


def _width(line: str) -> int:
    return len(_split_indent(line)[0].expandtabs(4))


def _keep_file_lines(new: str, olines: list[str], flines: list[str], normalize: Callable[[str], str],
                     use_tabs: bool) -> str:
    """`new` with the lines it keeps from old_string written as the file has them (`flines` are the file's
    lines matched by `olines`, blank ones left out). Lines it changes or adds take the indentation shift of
    the old line they replace, or of the one above them."""
    pairs = [(o, f) for o, f in zip(olines, flines, strict=True) if o.strip()]
    if not pairs:
        return new
    old_keys = [normalize(o) for o, _ in pairs]
    shifts = [_width(f) - _width(o) for o, f in pairs]
    lines = new.split("\n")
    new_keys = [normalize(line) if line.strip() else "\0" for line in lines]
    out = list(lines)
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old_keys, new_keys, autojunk=False).get_opcodes():
        for j in range(j1, j2):
            if tag == "equal":
                out[j] = pairs[i1 + j - j1][1]
            elif lines[j].strip():
                i = min(i1 + j - j1, i2 - 1) if tag == "replace" else i1 - 1 if i1 > 0 else 0
                shift = shifts[min(i, len(shifts) - 1)]
                out[j] = lines[j] if shift == 0 else reindent(lines[j], shift, 4, use_tabs)
    return "\n".join(out)


_LADDER: tuple[tuple[str | None, Matcher], ...] = (
    (None, _exact),
    ("ignored trailing whitespace", _trailing_whitespace),
    *((f"matched with different indentation and re-indented new_string (tab width {size})", _indentation(size))
      for size in _TAB_SIZES),
    ("matched ignoring whitespace inside and between lines; unchanged lines kept as the file has them",
     _flexible(_squash)),
    ("matched ignoring whitespace and quote style; unchanged lines kept as the file has them",
     _flexible(_squash_quotes)),
)


class _Crlf:
    """Maps offsets in the LF-normalized text back to the content that has CRLF endings in some places."""

    def __init__(self, content: str) -> None:
        self.content = content
        self.normalized = content.replace("\r\n", "\n")
        self.crlf_at: list[int] = []  # positions (normalized) of newlines that were CRLF
        if len(self.normalized) != len(content):
            removed = 0
            pos = content.find("\r\n")
            while pos >= 0:
                self.crlf_at.append(pos - removed)
                removed += 1
                pos = content.find("\r\n", pos + 2)

    def original(self, offset: int) -> int:
        return offset + bisect.bisect_left(self.crlf_at, offset)

    def render(self, start: int, end: int, replacement: str) -> str:
        """`replacement` with the line endings of the region it replaces (CRLF where the region used CRLF)."""
        if not self.crlf_at or "\n" not in replacement:
            return replacement
        region = self.content[start:end]
        if "\n" in region:
            crlf = "\r\n" in region
        else:
            line_end = self.content.find("\n", end)
            crlf = line_end > 0 and self.content[line_end - 1] == "\r"
        return replacement.replace("\n", "\r\n") if crlf else replacement


def plan_edit(content: str, old: str, new: str, expected: int = 1, *, explain: bool = True) -> EditPlan | EditMiss:
    """Where `old` (non-empty) goes in `content` and what the content becomes, or why that is unclear.

    Fewer exact occurrences than expected still try the corrections (which find the exact ones too)."""
    found = content.count(old)
    if found == expected:
        return EditPlan(content.replace(old, new), found)
    if found > expected:
        return EditMiss(found)
    crlf = _Crlf(content)
    view = _Lines(crlf.normalized)
    old_lf, new_lf = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
    variants: list[tuple[str | None, str, str]] = [(None, old_lf, new_lf)]
    if unescape(old_lf) != old_lf:
        variants.append(("unescaped over-escaped old_string and new_string", unescape(old_lf), unescape(new_lf)))
    ambiguous = 0
    for variant, old_v, new_v in variants:
        if not old_v.strip("\n"):
            continue
        for label, matcher in _LADDER:
            spans = matcher(view, old_v, new_v)
            if len(spans) == expected:
                labels = [text for text in (variant, label) if text]
                if not labels:
                    labels = ["matched across different line endings (LF/CRLF)"]
                return EditPlan(_apply(crlf, spans), len(spans), "; ".join(labels))
            ambiguous = max(ambiguous, len(spans))
    if found:
        return EditMiss(found)
    return EditMiss(0, ambiguous, closest_region(crlf.normalized, old_lf) if explain else None)


def _apply(crlf: _Crlf, spans: list[Span]) -> str:
    pieces: list[str] = []
    cursor = 0
    for start_n, end_n, replacement in spans:
        start, end = crlf.original(start_n), crlf.original(end_n)
        pieces.append(crlf.content[cursor:start])
        pieces.append(crlf.render(start, end, replacement))
        cursor = end
    pieces.append(crlf.content[cursor:])
    return "".join(pieces)


def _bigrams(text: str) -> set[str]:
    return {text[i:i + 2] for i in range(len(text) - 1)} or {text}


def closest_region(content: str, old: str, max_lines: int = 30) -> tuple[int, int, str] | None:
    """The lines of `content` most like `old`: the window where most of its stripped lines line up, else the
    line sharing the most character pairs with its first non-blank line (at least half of them)."""
    flines = content.split("\n")
    olines = unescape(old).strip("\n").split("\n")
    where: dict[str, list[int]] = defaultdict(list)
    for i, line in enumerate(flines):
        if line.strip():
            where[line.strip()].append(i)
    votes: Counter[int] = Counter()
    for j, line in enumerate(olines):
        for i in where.get(line.strip(), ()) if line.strip() else ():
            votes[i - j] += 1
    if votes:
        start = max(votes, key=lambda s: (votes[s], -s))
    else:
        first = next((line.strip() for line in olines if line.strip()), "")
        if not first:
            return None
        wanted = _bigrams(first)
        best, start = 0.0, -1
        for text, numbers in where.items():
            if not len(first) / 2 <= len(text) <= len(first) * 2:
                continue  # too different in length to share half of the pairs
            pairs = _bigrams(text)
            score = len(wanted & pairs) / len(wanted | pairs)
            if score > best:
                best, start = score, numbers[0]
        if best < 0.5:
            return None
    start = max(0, start)
    end = min(len(flines), start + min(len(olines), max_lines))
    return start + 1, end, "\n".join(flines[start:end])
