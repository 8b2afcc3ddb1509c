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

from gemini_tui.tools.replace.three_way import carry

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
    unclear: str | None = None  # a place was found, but new_string cannot be applied to it without a guess


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


# A matcher finds non-overlapping places of `old` in LF-only text and returns (start, end, replacement) for each;
# the replacement is None when the place is clear but new_string cannot be applied to it without a guess.
Span = tuple[int, int, str | None]
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
                  match: Callable[[list[str], list[str]], Callable[[str], str | None] | None]) -> list[Span]:
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
    def match(flines: list[str], olines: list[str]) -> Callable[[str], str | None] | None:
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
        def match(flines: list[str], olines: list[str]) -> Callable[[str], str | None] | None:
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
            moved = [reindent(o, shift, tab_size, use_tabs) for o in olines]
            # new_string shifted like old_string; the lines it keeps are then written as the file has them (its
            # own indentation characters, its trailing whitespace), so an edit differs from the file only where
            # it changes something
            return lambda text: _keep_file_lines(reindent(text, shift, tab_size, use_tabs), moved, flines,
                                                 str.strip, use_tabs)

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
            begin = view.starts[start]
            end = view.starts[last + 1] if ends_with_newline else view.starts[last] + len(view.lines[last])
            spans.append((begin, end, _merged_at(view, olines, matched, start, last + 1, new, ends_with_newline)))
            free_from = last + 1
        return spans

    return matcher


def _merged_at(view: _Lines, olines: list[str], matched: list[int], first: int, stop: int, new: str,
               ends_with_newline: bool) -> str | None:
    """new_string applied to file lines [first, stop), where old_string's non-blank lines are the file's lines
    `matched`; a blank line of old_string stands for a blank line of the file between the same neighbours."""
    nlines = new.split("\n")
    if ends_with_newline:
        if not new.endswith("\n"):
            return None
        nlines = nlines[:-1]
    region = view.lines[first:stop]
    mapped: list[int | None] = []
    solid = iter(matched)
    cursor = 0  # the next region line a blank line of old_string may stand for
    for line in olines:
        if line.strip():
            at = next(solid) - first
            mapped.append(at)
            cursor = at + 1
        elif cursor < len(region) and not region[cursor].strip():
            mapped.append(cursor)
            cursor += 1
        else:
            mapped.append(None)
    merged = _merge(olines, region, mapped, nlines, region[0].startswith("\t"))
    if merged is None:
        return None
    return "\n".join(merged) + ("\n" if ends_with_newline else "")


def _partner(line: str, olds: list[str], position: int, same_size: bool) -> int | None:
    """Which of a changed hunk's old lines new_string's `line` was made from: the one at its place when the
    hunk keeps its size, else the most alike (None when none is much alike: an added line)."""
    if same_size:
        return position
    scores = [SequenceMatcher(None, _squash(o), _squash(line), autojunk=False).ratio() for o in olds]
    best = max(range(len(olds)), key=lambda k: scores[k], default=None)
    return best if best is not None and scores[best] >= 0.6 else None


def _changed_line(o: str, f: str, n: str, shift: int, use_tabs: bool) -> str | None:
    """new_string's line `n`, made from old_string's `o` which the file has as `f`: the file's line with the
    model's change. When both touch the same characters, the model's line as written if only whitespace
    differed, else None (the slip would be written)."""
    carried = carry(o, f, n)
    if carried is not None:
        return carried
    if _squash(o) == _squash(f):
        return n if shift == 0 else reindent(n, shift, 4, use_tabs)
    return None


def _width(line: str) -> int:
    return len(_split_indent(line)[0].expandtabs(4))


def _keep_file_lines(new: str, olines: list[str], flines: list[str], normalize: Callable[[str], str],
                     use_tabs: bool) -> str | None:
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
                k = _partner(lines[j], [o for o, _ in pairs[i1:i2]], j - j1, i2 - i1 == j2 - j1) \
                    if tag == "replace" else None
                if k is not None:
                    changed = _changed_line(*pairs[i1 + k], lines[j], shift, use_tabs)
                    if changed is None:
                        return None
                    out[j] = changed
                else:
                    out[j] = lines[j] if shift == 0 else reindent(lines[j], shift, 4, use_tabs)
    return "\n".join(out)


# -- look-alike punctuation -------------------------------------------------------------------------------------
# what a model writes for the ASCII a file has: curly quotes, primes, dashes, the ellipsis, a no-break space
_LOOKALIKES = {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\u00b4": "'",
               "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"', "\u00ab": '"',
               "\u00bb": '"', "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-",
               "\u2015": "-", "\u2212": "-", "\u2026": "...", "\u00a0": " ", "\u202f": " ", "\u2009": " "}
_FOLD = str.maketrans(_LOOKALIKES)


def fold_lookalikes(text: str) -> str:
    """`text` with typographic look-alikes as the ASCII they stand for."""
    return text.translate(_FOLD)


def _squash_folded(line: str) -> str:
    return _squash_quotes(fold_lookalikes(line))


def _lookalikes(view: _Lines, old: str, new: str) -> list[Span]:
    """Whitespace-flexible matching with look-alikes folded on both sides. Lines new_string keeps are written as
    the file has them; in the lines it changes, a look-alike that old_string had and the region has not (the
    model's slip, repeated) is written as the ASCII the file uses."""
    if fold_lookalikes(old) == old:
        return []
    spans = _flexible(_squash_folded)(view, old, new)
    slipped = {char for char in set(old) if char in _LOOKALIKES}
    fixed: list[Span] = []
    for start, end, replacement in spans:
        region = view.text[start:end]
        mine = {char: _LOOKALIKES[char] for char in slipped if char not in region}
        fixed.append((start, end, replacement.translate(str.maketrans(mine)) if mine and replacement else
                      replacement))
    return fixed


# -- gaps in old_string: `...` elision, a line left out, a typo ---------------------------------------------------
# a line standing for lines left out: `...`, `…`, or a comment made of it (`# ...`, `// ... unchanged ...`)
_ELISION = re.compile(r"\s*(?:(?:#|//|--|;|%|/\*|<!--|\*)\s*)?(?:\.\.\.|…)(?:[\w\s.,()…-]*?)(?:\*/|-->)?\s*")


def _is_elision(line: str) -> bool:
    return _ELISION.fullmatch(line) is not None


def _merge(olines: list[str], region: list[str], mapped: list[int | None], nlines: list[str],
           use_tabs: bool, fixed: frozenset[int] = frozenset()) -> list[str] | None:
    """new_string applied to the file's region the way it changes old_string: `mapped[i]` is the region line old
    line `i` stands for (None for a blank line the file lacks). Lines new_string keeps are written as the file
    has them; region lines old_string lacks (a line left out, elided lines) stay where they are; lines it changes
    take the indentation shift of the line they replace. `fixed` old lines stand for a file line new_string may
    not change or remove (a line changed in the file since, or lines an elision stood for). None when a change
    touches a fixed line, or a line old_string lacks (where it goes would be a guess)."""
    out: list[str] = []
    cursor = 0  # the next region line not written yet

    def upto(stop: int) -> None:
        nonlocal cursor
        out.extend(region[cursor:stop])
        cursor = max(cursor, stop)

    def shift_at(i: int) -> int:
        for k in range(min(i, len(olines) - 1), -1, -1):
            if mapped[k] is not None and olines[k].strip():
                return _width(region[mapped[k]]) - _width(olines[k])  # type: ignore[index]
        return 0

    for tag, i1, i2, j1, j2 in SequenceMatcher(None, olines, nlines, autojunk=False).get_opcodes():
        if tag == "equal":
            for i in range(i1, i2):
                at = mapped[i]
                if at is None:
                    continue
                upto(at)
                out.append(region[at])
                cursor = at + 1
            continue
        if any(i in fixed for i in range(i1, i2)):
            return None  # new_string changes a line the file has changed since, or one it never showed
        if tag == "delete" and not _insert_here(region, cursor, mapped[i2:]) and not any(
                mapped[i] is not None for i in range(i1, i2)):
            return None  # it removes a line the file has in another form (which one is meant?)
        if tag == "replace" and i2 - i1 == j2 - j1:  # each line changed in place
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                at = mapped[i]
                if at is None:
                    if olines[i].strip():
                        return None  # new_string changes a line the file does not have
                    if not _insert_here(region, cursor, mapped[i + 1:]):
                        return None
                    out.append(nlines[j])
                    continue
                upto(at)
                changed = _changed_line(olines[i], region[at], nlines[j], shift_at(i), use_tabs)
                if changed is None:
                    return None
                out.append(changed)
                cursor = at + 1
            continue
        touched = [m for m in mapped[i1:i2] if m is not None]
        partners = [_partner(line, olines[i1:i2], j, False) if tag == "replace" else None
                    for j, line in enumerate(nlines[j1:j2])]
        if touched:
            first, last = min(touched), max(touched)
            if any(region[n].strip() for n in set(range(first, last + 1)) - set(touched)):
                return None  # the change spans a line old_string did not show
            if None in partners and not _insert_here(region, cursor, mapped[i1:]):
                return None  # lines added beside lines old_string did not show: before or after them?
            upto(first)
            cursor = last + 1
        elif j1 == j2:
            continue  # old_string's lines the file does not have, removed: nothing to do
        elif not _insert_here(region, cursor, mapped[i2:]):
            return None
        shift = shift_at(i1 if touched else i1 - 1)
        for line, k in zip(nlines[j1:j2], partners, strict=True):
            if k is not None and olines[i1 + k].strip():
                at = mapped[i1 + k]
                if at is None:
                    return None  # new_string changes a line the file does not have
                changed = _changed_line(olines[i1 + k], region[at], line, shift, use_tabs)
                if changed is None:
                    return None
                out.append(changed)
            else:
                out.append(line if shift == 0 or not line.strip() else reindent(line, shift, 4, use_tabs))
    upto(len(region))
    return out


def _insert_here(region: list[str], cursor: int, later: list[int | None]) -> bool:
    """Whether lines inserted at `cursor` have one place: no region line old_string lacks (a line left out,
    elided lines) lies between the cursor and the next line old_string shows (before or after it?)."""
    after = next((m for m in later if m is not None), len(region))
    return not any(region[n].strip() for n in range(cursor, after))


def _region_span(view: _Lines, first: int, stop: int) -> tuple[int, int]:
    return view.starts[first], view.starts[stop - 1] + len(view.lines[stop - 1])


def _split_newline(old: str, new: str) -> tuple[list[str], list[str]] | None:
    """old_string's and new_string's lines; a final newline of old_string must end new_string too."""
    if old.endswith("\n"):
        if not new.endswith("\n"):
            return None
        old, new = old[:-1], new[:-1]
    return old.split("\n"), new.split("\n")


def _find_lines(view: _Lines, key: Callable[[str], str], wanted: list[str], start: int, stop: int) -> list[int]:
    """Where the lines `wanted` (already keyed) occur together in view lines [start, stop)."""
    found = []
    for i in range(start, stop - len(wanted) + 1):
        if all(key(view.lines[i + d]) == wanted[d] for d in range(len(wanted))):
            found.append(i)
    return found


def _elision(view: _Lines, old: str, new: str) -> list[Span]:
    """old_string with lines left out as `...`: the lines before and after each elision occur once, in order
    (one place where each part is followed by the next with neither occurring again in between), and new_string
    keeps the same elisions; the edit applies to the parts, the elided lines stay as the file has them. A
    new_string written out whole (no elision) must then hold the elided lines as the file has them."""
    split = _split_newline(old, new)
    if split is None:
        return []
    olines, nlines = split
    omarks = [i for i, line in enumerate(olines) if _is_elision(line)]
    nmarks = [j for j, line in enumerate(nlines) if _is_elision(line)]
    written_out = bool(omarks) and not nmarks
    if not omarks or (len(omarks) != len(nmarks) and not written_out):
        return []
    if written_out and (omarks[0] == 0 or omarks[-1] == len(olines) - 1):
        return []  # an elision at an end bounds nothing: which lines new_string's text replaces is a guess
    if not written_out and ((omarks[0] == 0) != (nmarks[0] == 0)
                            or (omarks[-1] == len(olines) - 1) != (nmarks[-1] == len(nlines) - 1)):
        return []
    oparts = _split_at(olines, omarks)
    nparts = _split_at(nlines, nmarks) if not written_out else [nlines]
    trimmed: list[tuple[int, list[str]]] = []  # (index of its first solid line, the part without blank edges)
    for number, part in enumerate(oparts):
        solid = [n for n, line in enumerate(part) if line.strip()]
        if not solid:
            if 0 < number < len(oparts) - 1:
                return []  # two elisions side by side: nothing anchors what lies between
            if written_out or any(line.strip() for line in nparts[number]):
                return []  # new_string adds lines where old_string anchors nothing
            continue
        trimmed.append((number, part[solid[0]:solid[-1] + 1]))
    if not trimmed:
        return []
    everywhere = [_find_lines(view, _squash, [_squash(line) for line in part], 0, len(view.lines))
                  for _, part in trimmed]
    chains = []
    for begin_at in everywhere[0]:
        places = [begin_at]
        for number in range(1, len(trimmed)):
            end = places[-1] + len(trimmed[number - 1][1])
            after = [at for at in everywhere[number] if at >= end]
            before = [at for at in everywhere[number - 1] if end <= at < (after[0] if after else 0)]
            if not after or before:
                break  # no next part, or the part before it occurs again in the gap: not a tight reading
            places.append(after[0])
        else:
            chains.append(places)
    if len(chains) != 1:
        return []  # the parts occur in order in no place, or in more than one
    places = chains[0]
    if any(at < places[0] for at in everywhere[0]) or any(at > places[-1] for at in everywhere[-1]):
        return []  # the first part occurs again before, or the last again after: how far `...` reaches is a guess
    use_tabs = view.lines[places[0]].startswith("\t")
    if written_out:
        return [_written_out(view, trimmed, places, nlines, use_tabs)]
    out: list[str] = []
    previous_end: int | None = None
    for (number, part), at in zip(trimmed, places, strict=True):
        if previous_end is not None:
            out.extend(view.lines[previous_end:at])  # the elided lines, as the file has them
        whole = oparts[number]
        offset = next(n for n, line in enumerate(whole) if line.strip())
        mapped: list[int | None] = [n - offset if 0 <= n - offset < len(part) else None for n in range(len(whole))]
        merged = _merge(whole, view.lines[at:at + len(part)], mapped, nparts[number], use_tabs)
        if merged is None:
            return []
        out.extend(merged)
        previous_end = at + len(part)
    assert previous_end is not None
    start, end = _region_span(view, places[0], previous_end)
    return [(start, end, "\n".join(out))]


def _written_out(view: _Lines, parts: list[tuple[int, list[str]]], places: list[int], nlines: list[str],
                 use_tabs: bool) -> Span:
    """new_string written out whole for old_string with elisions: old_string read with the file's elided lines
    in place of each elision, which new_string may not change (it never showed them)."""
    olines: list[str] = []
    mapped: list[int | None] = []
    fixed: set[int] = set()
    first = places[0]
    for (_, part), at in zip(parts, places, strict=True):
        for gap in range(first + len(mapped), at):  # the elided lines, as the file has them
            fixed.add(len(olines))
            olines.append(view.lines[gap])
            mapped.append(gap - first)
        for offset, line in enumerate(part):
            olines.append(line)
            mapped.append(at + offset - first)
    stop = first + len(mapped)
    merged = _merge(olines, view.lines[first:stop], mapped, nlines, use_tabs, frozenset(fixed))
    start, end = _region_span(view, first, stop)
    return start, end, None if merged is None else "\n".join(merged)


def _split_at(lines: list[str], marks: list[int]) -> list[list[str]]:
    parts, begin = [], 0
    for mark in [*marks, len(lines)]:
        parts.append(lines[begin:mark])
        begin = mark + 1
    return parts


APPROXIMATE_SIMILARITY = 0.9  # the region must be at least this like old_string
EXPLAINED_SIMILARITY = 0.6  # or this, when a line of old_string is not in the file (stale or extra)
APPROXIMATE_MARGIN = 0.1  # and this much more alike than any other region
_COMMON = 40  # a line found more often than this in the file says nothing about where old_string is


@dataclass(frozen=True)
class Approximate:
    """The one region clearly most like old_string (1-based lines), how alike, and the next best region's score."""

    first: int
    last: int
    similarity: float
    runner_up: float
    span: Span
    notes: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        notes = "".join(f"; {note}" for note in self.notes)
        return (f"used an approximate match: lines {self.first}-{self.last} (similarity {self.similarity:.2f}; "
                f"the next best region {self.runner_up:.2f}{notes})")


def one_slip(a: str, b: str) -> bool:
    """Whether `a` is `b` with one character slipped: one added, dropped or replaced, or two adjacent swapped."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    a, b = a[head:], b[head:]
    if len(a) == len(b):
        return a[1:] == b[1:] or (len(a) >= 2 and a[0] == b[1] and a[1] == b[0] and a[2:] == b[2:])
    return a[1:] == b if len(a) > len(b) else a == b[1:]


def _align(keys: list[str], rkeys: list[str]) -> tuple[list[int | None], float, set[int]]:
    """Which region line each old line stands for (equal, or with one slipped character), how much of old's
    text is found that way (a share of its characters), and the old lines that stand alone in place of another
    region line (one line changed for one: a line changed in the file since)."""
    mapped: list[int | None] = [None] * len(keys)
    stale: set[int] = set()
    found = 0.0
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, keys, rkeys, autojunk=False).get_opcodes():
        if tag == "equal":
            for d in range(i2 - i1):
                mapped[i1 + d] = j1 + d
                found += len(keys[i1 + d])
        elif tag == "replace":  # lines with a slip: each paired with the next region line one slip away
            j = j1
            for i in range(i1, i2):
                at = next((n for n in range(j, j2) if keys[i] and one_slip(keys[i], rkeys[n])), None)
                if at is not None:
                    mapped[i] = at
                    found += len(keys[i]) - 1
                    j = at + 1
            if i2 - i1 == 1 and j2 - j1 == 1 and mapped[i1] is None and keys[i1] and rkeys[j1]:
                mapped[i1] = j1
                stale.add(i1)
    total = sum(len(k) for k in keys)
    return mapped, found / total if total else 0.0, stale


def approximate_match(view: _Lines, old: str, new: str) -> Approximate | _Refusal | None:
    """The region most like old_string when it is clearly the one. Its first and last lines are old_string's
    (equal, or with one slipped character), the lines between too, in order, but for at most two differences
    explained as: a line old_string left out, a line it has that the file lacks, or a line the file has in
    another form (changed since). Its similarity (the share of old_string's characters found) is at least
    APPROXIMATE_SIMILARITY (EXPLAINED_SIMILARITY when a line of old_string is not in the file), and
    APPROXIMATE_MARGIN above every region elsewhere (not overlapping it)."""
    split = _split_newline(old, new)
    if split is None:
        return None
    olines, nlines = split
    keys = [_squash_folded(line) for line in olines]
    solid = [n for n, key in enumerate(keys) if key]
    if len(solid) < 2:
        return None  # one line is too little to tell a typo from another line
    where: dict[str, list[int]] = defaultdict(list)
    for number, line in enumerate(view.lines):
        if line.strip():
            where[_squash_folded(line)].append(number)
    anchors: set[tuple[int, int]] = set()  # (old line, file line) pairs that are equal
    for j, key in enumerate(keys):
        found = where.get(key, ()) if key else ()
        if 0 < len(found) <= _COMMON:
            anchors.update((j, i) for i in found)
    total = sum(len(key) for key in keys)
    regions: dict[tuple[int, int], _Reading] = {}
    near: list[tuple[float, int, int, str]] = []  # regions set aside: (similarity, first, stop, why)
    for j, i in anchors:
        # old's lines before and after the anchor, aligned with the file's lines just before and after it (two
        # more on each side for lines left out): the region is read around this place only
        first = max(0, i - j - 2)
        stop = min(len(view.lines), i + len(olines) - j + 2)
        before, found_before, stale_before = _align(keys[:j], [_squash_folded(x) for x in view.lines[first:i]])
        after, found_after, stale_after = _align(keys[j + 1:], [_squash_folded(x) for x in view.lines[i + 1:stop]])
        mapped = [None if m is None else first + m for m in before] + [i] + [
            None if m is None else i + 1 + m for m in after]
        stale = frozenset(stale_before | {n + j + 1 for n in stale_after})
        similarity = (found_before * sum(len(k) for k in keys[:j]) + len(keys[j])
                      + found_after * sum(len(k) for k in keys[j + 1:])) / total
        hits = [m for m in mapped if m is not None]
        low, high = min(hits), max(hits) + 1  # the region: from the first line found to the last
        if any(mapped[end] is None or end in stale for end in (solid[0], solid[-1])):
            # old_string's first and last lines must be there: they bound the region (as named, the lines
            # old_string would cover from its anchor)
            near.append((similarity, max(0, min(low, i - j)), max(high, min(len(view.lines), i - j + len(olines))),
                         "old_string's first or last line is not there"))
            continue
        if any(_is_elision(olines[n]) for n in solid if mapped[n] is None or n in stale):
            continue  # an elision stands for lines, never for a line that changed (the elision tier reads it)
        taken = set(hits)
        missing = [n for n in range(low, high) if view.lines[n].strip() and n not in taken]
        extra = [n for n in solid if mapped[n] is None]
        equal = sum(1 for n in solid if mapped[n] is not None and n not in stale
                    and keys[n] == _squash_folded(view.lines[mapped[n]]))  # type: ignore[index]
        if len(stale) + len(extra) + len(missing) > 2 or len(stale) + len(extra) > 1:
            near.append((similarity, low, high, "more of its lines differ from old_string's than a slip or two "
                                                "explain"))
            continue
        if (stale or extra) and (len(solid) < 3 or equal < 2 or similarity < EXPLAINED_SIMILARITY):
            near.append((similarity, low, high, "too few of old_string's lines are there as they are"))
            continue
        if not stale and not extra and similarity < APPROXIMATE_SIMILARITY:
            near.append((similarity, low, high, f"it is too unlike old_string (similarity {similarity:.2f})"))
            continue
        shifted = [None if m is None else m - low for m in mapped]
        notes = [f"line {low + 1 + mapped_at} of the file differs from old_string's and is kept"
                 for n in sorted(stale) if (mapped_at := shifted[n]) is not None]
        notes += [f"old_string's line {olines[n].strip()[:40]!r} is not in the file" for n in extra]
        notes += [f"line {n + 1} of the file, left out of old_string, is kept" for n in missing]
        if (low, high) not in regions or regions[(low, high)].similarity < similarity:
            regions[(low, high)] = _Reading(similarity, shifted, stale, notes)
    if not regions:
        if not near:
            return None
        similarity, low, high, why = max(near)
        return _Refusal(low + 1, high, f"the closest region, lines {low + 1}-{high}, is not used: {why}")
    (low, high), best = max(regions.items(), key=lambda item: (item[1].similarity, item[0][0] - item[0][1]))
    others = [(reading.similarity, f, s) for (f, s), reading in regions.items() if s <= low or f >= high]
    others += [(similarity, f, s) for similarity, f, s, _ in near if s <= low or f >= high]
    runner_up = max(others, default=(0.0, 0, 0))
    if best.similarity - runner_up[0] < APPROXIMATE_MARGIN:
        return _Refusal(low + 1, high, f"the closest region, lines {low + 1}-{high} (similarity "
                                       f"{best.similarity:.2f}), is not clearly the one: lines "
                                       f"{runner_up[1] + 1}-{runner_up[2]} are nearly as alike "
                                       f"({runner_up[0]:.2f})")
    region = view.lines[low:high]
    use_tabs = region[0].startswith("\t")
    merged = _merge(olines, region, best.mapped, nlines, use_tabs, best.stale)
    for n in range(len(olines)):
        # a line old_string has twice in a row where the file has it once: either copy may be the real one,
        # and the edit must come out the same either way
        twin = n + 1 if n + 1 < len(olines) and keys[n + 1] == keys[n] else n - 1 if n and keys[n - 1] == keys[n] \
            else None
        if keys[n] and best.mapped[n] is None and twin is not None and merged is not None:
            swapped = list(best.mapped)
            swapped[n], swapped[twin] = swapped[twin], None
            if _merge(olines, region, swapped, nlines, use_tabs, best.stale) != merged:
                merged = None
    start, end = _region_span(view, low, high)
    return Approximate(low + 1, high, best.similarity, runner_up[0],
                       (start, end, None if merged is None else "\n".join(merged)), tuple(best.notes))


@dataclass(frozen=True)
class _Refusal:
    """The region closest to old_string (1-based lines) and why it is not used."""

    first: int
    last: int
    why: str


@dataclass(frozen=True)
class _Reading:
    """One way to read a region as old_string: how alike, which region line each old line stands for, the old
    lines that stand for a line the file has changed since, and what differs, in words."""

    similarity: float
    mapped: list[int | None]
    stale: frozenset[int]
    notes: list[str]


_LADDER: tuple[tuple[str | None, Matcher], ...] = (
    (None, _exact),
    ("ignored trailing whitespace", _trailing_whitespace),
    *((f"matched with different indentation and re-indented new_string (tab width {size})", _indentation(size))
      for size in _TAB_SIZES),
    ("matched ignoring whitespace inside and between lines; unchanged lines kept as the file has them",
     _flexible(_squash)),
    ("matched ignoring whitespace and quote style; unchanged lines kept as the file has them",
     _flexible(_squash_quotes)),
    ("matched with typographic look-alikes (’ “ – …) read as ASCII; unchanged lines kept as the file has them",
     _lookalikes),
    ("matched the lines around each `...` elision; the elided lines kept as the file has them", _elision),
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
                if any(replacement is None for _, _, replacement in spans):
                    return _unclear(view, spans, "; ".join(labels), explain)
                return EditPlan(_apply(crlf, spans), len(spans), "; ".join(labels))
            ambiguous = max(ambiguous, len(spans))
    refusal: _Refusal | None = None
    if expected == 1 and not found:
        for variant, old_v, new_v in variants:
            close = approximate_match(view, old_v, new_v)
            if isinstance(close, _Refusal):
                refusal = refusal or close
            elif close is not None:
                label = "; ".join(text for text in (variant, close.label) if text)
                if close.span[2] is None:
                    return _unclear(view, [close.span], label, explain)
                return EditPlan(_apply(crlf, [close.span]), 1, label)
    if found:
        return EditMiss(found)
    if refusal is not None and not ambiguous:
        region = (refusal.first, refusal.last, "\n".join(view.lines[refusal.first - 1:refusal.last]))
        return EditMiss(0, 0, region if explain else None, refusal.why)
    return EditMiss(0, ambiguous, closest_region(crlf.normalized, old_lf) if explain else None)


def _unclear(view: _Lines, spans: list[Span], how: str, explain: bool) -> EditMiss:
    """A place found, but new_string changes a line where the file differs from old_string in the same
    characters, or adds lines beside lines old_string left out: refused, naming the place."""
    start, end, _ = next(span for span in spans if span[2] is None)
    first = bisect.bisect_right(view.starts, start)
    last = bisect.bisect_right(view.starts, max(start, end - 1))
    region = "\n".join(view.lines[first - 1:last])
    return EditMiss(0, 0, (first, last, region) if explain else None,
                    f"old_string was found at lines {first}-{last} ({how}), but new_string changes it where the "
                    "file differs from old_string, or adds lines beside lines old_string does not show, so the "
                    "result would be a guess")


def _apply(crlf: _Crlf, spans: list[Span]) -> str:
    pieces: list[str] = []
    cursor = 0
    for start_n, end_n, replacement in spans:
        start, end = crlf.original(start_n), crlf.original(end_n)
        pieces.append(crlf.content[cursor:start])
        assert replacement is not None
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
