"""Slightly wrong edits of real files (the Python standard library on this machine), one kind of slip each.

Every case takes a region of 2-8 lines that occurs once in its file, makes a true edit of it (one line changed,
added or removed), then perturbs what the "model" sends the way models slip: indentation, tabs, inner
whitespace, over-escaping, LF against a CRLF file, trailing spaces, quote style, blank lines, typographic
look-alikes (’ for ', “ for ", – for -), a one-character typo, a line missing from the middle, and `...` elision
of unchanged lines (kept as `...` in new_string). Slips in the
region's text hit old_string and the lines new_string keeps from it; systematic ones (indentation, tabs,
escapes) hit every line. `expected` is the file after the true edit."""

from __future__ import annotations

import random
import re
import sysconfig
from dataclasses import dataclass
from pathlib import Path

KINDS = ("indentation", "tabs", "inner_whitespace", "escapes", "crlf", "trailing_spaces", "quotes", "blank_lines",
         "lookalikes", "typo", "missing_line", "elision")
# typographic look-alikes a model writes for the ASCII the file has
_LOOKALIKES = {"'": ("\u2019", "\u2018"), '"': ("\u201c", "\u201d"), "-": ("\u2013", "\u2014")}


@dataclass(frozen=True)
class EditCase:
    kind: str
    file: str
    content: str  # the file as it is on disk
    old: str  # what the model sends
    new: str
    expected: str  # the file after the edit the model meant
    true_old: str  # the region as the file has it (what a perfect correction finds)
    true_new: str


def _files() -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    return sorted(p for p in root.glob("*.py") if 2_000 < p.stat().st_size < 200_000)


def _region(rng: random.Random, lines: list[str]) -> tuple[int, int] | None:
    for _ in range(30):
        size = rng.randint(2, 8)
        start = rng.randrange(0, max(1, len(lines) - size))
        block = lines[start:start + size]
        if sum(1 for line in block if line.strip()) < 2 or not block[0].strip() or not block[-1].strip():
            continue
        if not any(line.startswith(" ") for line in block):
            continue  # indented code: where indentation slips happen
        return start, start + size
    return None


def _true_edit(rng: random.Random, block: list[str], avoid: frozenset[int] = frozenset()) -> list[str]:
    edited = list(block)
    index = rng.choice([i for i, line in enumerate(block) if line.strip() and i not in avoid])
    indent = block[index][:len(block[index]) - len(block[index].lstrip())]
    match rng.randrange(3):
        case 0:
            edited[index] = block[index].rstrip() + "  # checked"
        case 1:
            edited.insert(index + 1, f"{indent}log_step({index})")
        case _:
            edited[index] = f"{indent}pass  # was: {block[index].strip()[:30]}"
    return edited


def _perturb_line(kind: str, line: str, rng: random.Random) -> str:
    if not line.strip():
        return line
    match kind:
        case "inner_whitespace":
            body = line.lstrip()
            indent = line[:len(line) - len(body)]
            spaced = re.sub(r"([(\[{,=])", lambda m: m.group(1) + " ", body, count=2) if rng.random() < 0.5 else \
                re.sub(r" ", "  ", body, count=1)
            return indent + spaced
        case "trailing_spaces":
            return line + " " * rng.randint(1, 3)
        case "quotes":
            return line.replace("'", "\x00").replace('"', "'").replace("\x00", '"')
    return line


def _make(rng: random.Random, kind: str, path: Path) -> EditCase | None:
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None
    if "\r" in text or "\t" in text:
        return None
    lines = text.split("\n")
    span = _region(rng, lines)
    if span is None:
        return None
    block = lines[span[0]:span[1]]
    true_old = "\n".join(block)
    if text.count(true_old) != 1:
        return None
    if kind in ("missing_line", "elision"):
        return _make_gap(rng, kind, path, text, block)
    edited = _true_edit(rng, block)
    true_new = "\n".join(edited)
    expected = text.replace(true_old, true_new)
    old_lines, new_lines = list(block), list(edited)
    kept = {line for line in block}
    content = text
    match kind:
        case "indentation":
            shift = rng.choice([-4, -8, 4, 2])
            width = min(len(x) - len(x.lstrip()) for x in block if x.strip())
            shift = max(shift, -width)
            if shift == 0:
                shift = 4

            def move(line: str) -> str:
                return line if not line.strip() else (" " * shift + line if shift > 0 else line[-shift:])

            old_lines, new_lines = [move(x) for x in old_lines], [move(x) for x in new_lines]
        case "tabs":
            def tab(line: str) -> str:
                body = line.lstrip(" ")
                return "\t" * ((len(line) - len(body)) // 4) + " " * ((len(line) - len(body)) % 4) + body

            old_lines, new_lines = [tab(x) for x in old_lines], [tab(x) for x in new_lines]
        case "escapes":
            if not any(ch in true_old for ch in "\"'") and rng.random() < 0.5:
                return None
            old_s = "\\n".join(x.replace('"', '\\"') for x in old_lines)
            new_s = "\\n".join(x.replace('"', '\\"') for x in new_lines)
            return EditCase(kind, path.name, content, old_s, new_s, expected, true_old, true_new)
        case "crlf":
            content = text.replace("\n", "\r\n")
            expected = expected.replace("\n", "\r\n")
        case "blank_lines":
            blanks = [i for i, x in enumerate(block) if not x.strip()]
            if blanks:
                drop = rng.choice(blanks)
                old_lines = [x for i, x in enumerate(block) if i != drop]
            else:
                at = rng.randrange(1, len(block))
                old_lines = [*block[:at], "", *block[at:]]
        case "lookalikes":
            candidates = [i for i, x in enumerate(block) if any(c in x for c in _LOOKALIKES)]
            if not candidates:
                return None
            chosen = rng.sample(candidates, k=max(1, len(candidates) // 2))
            slipped = {block[i]: _lookalike(block[i], rng) for i in chosen}
            old_lines = [slipped.get(x, x) for x in block]
            new_lines = [slipped.get(x, x) if x in kept else x for x in edited]
        case "typo":
            candidates = [i for i, x in enumerate(block) if sum(c.isalpha() for c in x) >= 6]
            if not candidates:
                return None
            at = rng.choice(candidates)
            slipped = {block[at]: _typo(block[at], rng)}
            old_lines = [slipped.get(x, x) for x in block]
            new_lines = [slipped.get(x, x) if x in kept else x for x in edited]
        case _:
            changed = rng.sample(range(len(block)), k=max(1, len(block) // 2))
            slipped = {block[i]: _perturb_line(kind, block[i], rng) for i in changed}
            if all(block[i] == slipped[block[i]] for i in changed):
                return None
            old_lines = [slipped.get(x, x) for x in block]
            new_lines = [slipped.get(x, x) if x in kept else x for x in edited]
    return EditCase(kind, path.name, content, "\n".join(old_lines), "\n".join(new_lines), expected, true_old,
                    true_new)


def _lookalike(line: str, rng: random.Random) -> str:
    """Every ', " or - of the line as a typographic look-alike (the kind a model's training text is full of)."""
    return "".join(rng.choice(_LOOKALIKES[c]) if c in _LOOKALIKES else c for c in line)


def _typo(line: str, rng: random.Random) -> str:
    """One slip of one character: two letters swapped, one dropped, doubled or replaced."""
    letters = [i for i, c in enumerate(line) if c.isalpha()]
    for _ in range(20):
        i = rng.choice(letters[:-1])
        match rng.randrange(4):
            case 0:
                slipped = line[:i] + line[i + 1] + line[i] + line[i + 2:]
            case 1:
                slipped = line[:i] + line[i + 1:]
            case 2:
                slipped = line[:i] + line[i] + line[i:]
            case _:
                slipped = line[:i] + rng.choice("aeiourstn") + line[i + 1:]
        if slipped != line:
            return slipped
    return line[:-1]


def _make_gap(rng: random.Random, kind: str, path: Path, text: str, block: list[str]) -> EditCase | None:
    """old_string lacks lines of the region: one left out by mistake (`missing_line`), or a run of them
    abbreviated as `...` or a comment made of `...` (`elision`, kept the same way in new_string)."""
    inner = [i for i in range(1, len(block) - 1) if block[i].strip()]
    if kind == "missing_line":
        if not inner:
            return None
        gap = [rng.choice(inner)]
    else:
        if len(block) < 4:
            return None
        start = rng.randrange(1, len(block) - 2)
        gap = list(range(start, min(len(block) - 1, start + rng.randint(1, 3))))
        if not any(block[i].strip() for i in gap):
            return None
    edited = _true_edit(rng, block, frozenset(gap))
    true_old, true_new = "\n".join(block), "\n".join(edited)
    expected = text.replace(true_old, true_new)
    first = block[gap[0]]
    indent = first[:len(first) - len(first.lstrip())] if first.strip() else ""
    marker = [indent + rng.choice(["...", "# ..."])] if kind == "elision" else []
    old_lines = [*block[:gap[0]], *marker, *block[gap[-1] + 1:]]
    # new_string: the true edit (never of a line in the gap), with the same lines left out
    delta = len(edited) - len(block)
    at = gap[0] if edited[gap[0]:gap[-1] + 1] == block[gap[0]:gap[-1] + 1] else gap[0] + delta
    assert edited[at:at + len(gap)] == block[gap[0]:gap[-1] + 1]
    new_lines = [*edited[:at], *marker, *edited[at + len(gap):]]
    return EditCase(kind, path.name, text, "\n".join(old_lines), "\n".join(new_lines), expected, true_old, true_new)


def corpus(per_kind: int = 40, seed: int = 2024) -> list[EditCase]:
    rng = random.Random(seed)
    files = _files()
    cases: list[EditCase] = []
    for kind in KINDS:
        made = 0
        while made < per_kind:
            case = _make(rng, kind, rng.choice(files))
            if (case is not None and case.old != case.true_old) or (case is not None and kind == "crlf"):
                cases.append(case)  # type: ignore[arg-type]
                made += 1
    return cases
