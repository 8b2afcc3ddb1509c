"""Slightly wrong `replace` calls on real files, one kind of slip each, every case knowing the edit it meant.

The files are real: the Python standard library on this machine, this repository's own Markdown, JSON, TOML,
stylesheets and JavaScript, and generated JSON, YAML, JavaScript and Windows-1252 text (curly quotes, accents).
Some are written with CRLF endings, some in cp1252. Each case takes a block of 3-10 lines that occurs once in
its file and makes a true edit of it (a line changed, a word renamed, a line added, removed, or two changed).
The "model" then sends that edit the way models slip, and writes new_string by applying the same edit to its
own (slipped) old_string, so a slip in a kept or changed line is repeated in new_string:

- whitespace: spaces inside lines, trailing spaces, a blank line added or dropped;
- indentation: shifted, stripped to the left margin, tabs for spaces;
- escapes: newlines, quotes, tabs and backslashes written escaped, as in a JSON string;
- crlf: a CRLF (or mixed) file edited with LF text, or an LF file with CRLF text;
- lookalikes: curly quotes and dashes for ASCII, or ASCII for the file's curly quotes;
- typo: one character slipped in one line (swapped, dropped, doubled or replaced);
- missing_line: one inner line of the block left out;
- extra_line: a line the file does not have (a repeated neighbour, or one from elsewhere) put in;
- elision: inner lines written as `...` or `# ... existing code ...`, in new_string the same, another marker,
  or the whole text;
- stale_line: a line of the block changed in the file since the model read it; when the edit changes that very
  line the only right answer is a refusal (`expected` is None);
- duplicate: the file holds a second copy of the block (one line different, or identical: then a refusal is
  the only right answer) and old_string has a slip.

A case whose slipped old_string occurs in the file verbatim is not made: the text then names that place, and
an exact match is always applied."""

from __future__ import annotations

import json
import random
import re
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

KINDS = ("whitespace", "indentation", "escapes", "crlf", "lookalikes", "typo", "missing_line", "extra_line",
         "elision", "stale_line", "duplicate")
_TO_CURLY = {"'": ("\u2019", "\u2018"), '"': ("\u201c", "\u201d"), "-": ("\u2013", "\u2014")}
_FROM_CURLY = {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"}
_MARKERS = {"py": "# ...", "md": "...", "js": "// ...", "json": "...", "yaml": "# ...", "toml": "# ...",
            "css": "/* ... */"}
_LONG_MARKERS = {"py": "# ... existing code ...", "md": "\u2026", "js": "// ... unchanged ...",
                 "json": "…", "yaml": "# ... rest unchanged", "toml": "# ... unchanged", "css": "/* ... */"}
_COMMENT = {"py": "  # checked", "md": " (see below)", "js": "  // checked", "json": ",", "yaml": "  # checked",
            "toml": "  # checked", "css": "  /* checked */"}


@dataclass(frozen=True)
class Source:
    name: str
    style: str  # py, md, js, json, yaml, toml, css: how comments and inserted lines look
    text: str  # LF endings
    encoding: str = "utf-8"


@dataclass(frozen=True)
class EditCase:
    kind: str
    variant: str  # how this case slips, within its kind
    file: str
    content: str  # the file as on disk (decoded; its line endings as written)
    encoding: str
    old: str  # what the model sends
    new: str
    expected: str | None  # the file after the edit the model meant; None: only a refusal is right
    true_old: str  # the region as the file has it (LF), what a perfect correction finds
    true_new: str


# -- files --------------------------------------------------------------------------------------------------------

def _repo() -> Path:
    return Path(__file__).resolve().parents[1]


@cache
def sources(repository: bool = True) -> tuple[Source, ...]:
    """The files cases are cut from: stdlib Python, generated files, and (unless `repository` is False: a
    sample that must not change with this repository's text) this repository's own text files."""
    found: list[Source] = []
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    python = sorted(p for p in stdlib.glob("*.py") if 3_000 < p.stat().st_size < 120_000)
    for path in python[::3]:
        found.append(Source(path.name, "py", path.read_text(encoding="utf-8", errors="replace")))
    repo = _repo()
    styles = {".md": "md", ".json": "json", ".toml": "toml", ".tcss": "css", ".mjs": "js"}
    patterns = ("docs/*.md", "README.md", "styles/*.tcss", "tests/**/*.json", "tests/**/*.mjs", "pyproject.toml",
                "tests/**/*.toml") if repository else ()
    for pattern in patterns:
        for path in sorted(repo.glob(pattern)):
            text = path.read_text(encoding="utf-8", errors="replace")
            if text.count("\n") >= 12:
                found.append(Source(path.name, styles[path.suffix], text))
    rng = random.Random(7)
    for number in range(6):
        found.append(Source(f"config{number}.json", "json", _generated_json(rng)))
        found.append(Source(f"workflow{number}.yaml", "yaml", _generated_yaml(rng)))
        found.append(Source(f"module{number}.js", "js", _generated_js(rng)))
        found.append(Source(f"notes{number}.txt", "md", _generated_prose(rng), "cp1252"))
    return tuple(found)


_WORDS = ("alpha", "build", "cache", "delta", "event", "filter", "group", "handle", "index", "job", "kernel",
          "limit", "matrix", "node", "output", "parser", "query", "route", "stage", "token", "update", "value")


def _generated_json(rng: random.Random) -> str:
    def obj(depth: int) -> object:
        if depth > 2 or rng.random() < 0.3:
            return rng.choice([rng.randint(0, 999), f"{rng.choice(_WORDS)}-{rng.randint(1, 99)}", True, None,
                               f"path/to/{rng.choice(_WORDS)}.txt"])
        if rng.random() < 0.3:
            return [obj(depth + 1) for _ in range(rng.randint(1, 4))]
        return {f"{rng.choice(_WORDS)}{rng.choice(['', 'Name', 'Id', 'Count', 'Path'])}": obj(depth + 1)
                for _ in range(rng.randint(2, 6))}

    return json.dumps({f"{w}Settings": obj(0) for w in rng.sample(_WORDS, 8)}, indent=rng.choice([2, 4])) + "\n"


def _generated_yaml(rng: random.Random) -> str:
    lines = ["name: ci", "on:", "  push:", "    branches: [main]", "jobs:"]
    for job in rng.sample(_WORDS, 6):
        lines += [f"  {job}:", f"    runs-on: ubuntu-{rng.choice(['22.04', '24.04', 'latest'])}", "    steps:"]
        for _ in range(rng.randint(3, 6)):
            word = rng.choice(_WORDS)
            lines += [f"      - name: Run {word} step", f"        run: make {word} ARGS='--{rng.choice(_WORDS)}'"]
            if rng.random() < 0.4:
                lines += ["        env:", f"          {word.upper()}_LEVEL: \"{rng.randint(1, 9)}\""]
        lines.append("")
    return "\n".join(lines)


def _generated_js(rng: random.Random) -> str:
    out = ["'use strict';", "", "const config = require(\"./config\");", ""]
    for name in rng.sample(_WORDS, 8):
        a, b = rng.sample(_WORDS, 2)
        out += [f"function {name}Handler({a}, {b}) {{",
                f"  const {name}Value = {a}.get('{b}') || \"default-{name}\";",
                f"  if ({name}Value.length > {rng.randint(2, 40)}) {{",
                f"    console.log(`long ${{{name}Value}}`);",
                f"    return {b}.map((item) => item.{a} - {rng.randint(1, 9)});",
                "  }",
                f"  for (let i = 0; i < {b}.length; i++) {{",
                f"    {a}.push({b}[i] === \"{rng.choice(_WORDS)}\" ? i : -i);",
                "  }",
                f"  return {{ {a}, {b}, kind: '{rng.choice(_WORDS)}' }};",
                "}", ""]
    return "\n".join(out)


def _generated_prose(rng: random.Random) -> str:
    out = ["Release notes \u2013 caf\u00e9 edition", ""]
    for _ in range(12):
        word = rng.choice(_WORDS)
        out += [f"## The \u201c{word}\u201d r\u00e9sum\u00e9",
                f"The {word} stage now reads \u2018{rng.choice(_WORDS)}\u2019 first \u2013 na\u00efve readers "
                f"won\u2019t notice.",
                f"- {rng.choice(_WORDS)}: {rng.randint(1, 99)} items \u2014 see \u201c{rng.choice(_WORDS)}\u201d",
                f"- {rng.choice(_WORDS)}: d\u00e9j\u00e0 vu in step {rng.randint(1, 9)}",
                ""]
    return "\n".join(out)


# -- blocks and true edits -----------------------------------------------------------------------------------------

def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t"))]


def _pick_block(rng: random.Random, lines: list[str], text: str, size: tuple[int, int] = (3, 10)
                ) -> tuple[int, int] | None:
    for _ in range(40):
        k = rng.randint(*size)
        start = rng.randrange(0, max(1, len(lines) - k))
        block = lines[start:start + k]
        if len(block) < k or not block[0].strip() or not block[-1].strip():
            continue
        solid = [line for line in block if len(line.strip()) >= 4]
        if len(solid) < 3 or any("\t" in line or line != line.rstrip() for line in block):
            continue
        if len(set(line.strip() for line in solid)) < len(solid) or text.count("\n".join(block)) != 1:
            continue
        return start, start + k
    return None


Edit = Callable[[list[str], int], list[str]]


def _edits(style: str, rng: random.Random) -> list[tuple[str, Edit]]:
    """The true edits: each a function of (the block's lines, the index it edits) -> the edited lines. The same
    function, applied to the model's slipped lines at the same line, gives new_string."""
    tag = rng.randint(1, 99)

    def append(lines: list[str], i: int) -> list[str]:
        return [*lines[:i], lines[i] + _COMMENT[style], *lines[i + 1:]]

    def rename(lines: list[str], i: int) -> list[str]:
        words = list(re.finditer(r"[A-Za-z_]\w{3,}", lines[i]))
        if not words:
            return append(lines, i)
        word = words[min(len(words) - 1, tag % len(words))]
        line = lines[i][:word.start()] + word.group() + "_v2" + lines[i][word.end():]
        return [*lines[:i], line, *lines[i + 1:]]

    def insert(lines: list[str], i: int) -> list[str]:
        added = {"py": f"log_step({tag})", "md": f"- step {tag} is new", "js": f"logStep({tag});",
                 "json": f"\"step{tag}\": {tag},", "yaml": f"step{tag}: true", "toml": f"step{tag} = true",
                 "css": f"margin: {tag % 4};"}[style]
        return [*lines[:i + 1], _indent(lines[i]) + added, *lines[i + 1:]]

    def delete(lines: list[str], i: int) -> list[str]:
        return [*lines[:i], *lines[i + 1:]]

    def two(lines: list[str], i: int) -> list[str]:
        if i + 1 >= len(lines) or not lines[i + 1].strip():
            return append(lines, i)
        return [*lines[:i], lines[i] + _COMMENT[style], lines[i + 1] + _COMMENT[style], *lines[i + 2:]]

    return [("append", append), ("rename", rename), ("insert", insert), ("delete", delete), ("two", two)]


# -- slips ---------------------------------------------------------------------------------------------------------

def _typo(line: str, rng: random.Random) -> str | None:
    spots = [m.start() + rng.randrange(len(m.group()) - 1) for m in re.finditer(r"[A-Za-z]{4,}", line)]
    if not spots:
        return None
    i = rng.choice(spots)
    match rng.randrange(4):
        case 0:
            slipped = line[:i] + line[i + 1] + line[i] + line[i + 2:]
        case 1:
            slipped = line[:i] + line[i + 1:]
        case 2:
            slipped = line[:i] + line[i] + line[i:]
        case _:
            slipped = line[:i] + rng.choice([c for c in "aeiourstnl" if c != line[i]]) + line[i + 1:]
    return slipped if slipped != line else None


def _inner_space(line: str, rng: random.Random) -> str:
    body = line.lstrip()
    indent = line[:len(line) - len(body)]
    options = [re.sub(r"([(\[{])", r"\1 ", body, count=1), re.sub(r"([)\]}])", r" \1", body, count=1),
               re.sub(r" ", "  ", body, count=1), re.sub(r", ", ",", body, count=1), re.sub(r" = ", "=", body)]
    changed = [o for o in options if o != body]
    return indent + rng.choice(changed) if changed else line + "  "


def _escape(text: str, how: str) -> str:
    if how == "json":
        return json.dumps(text)[1:-1]
    if how == "quotes":
        return text.replace('"', '\\"').replace("\n", "\\n")
    return text.replace("\n", "\\n")


def _elided(lines: list[str], first: int, last: int, marker: str) -> list[str]:
    indent = next((_indent(line) for line in lines[first:last + 1] if line.strip()), "")
    return [*lines[:first], indent + marker, *lines[last + 1:]]


@dataclass
class _Draft:
    """A case being made: the file's lines, the block, the model's view of it (its lines, and which block line
    each stands for: None for a line the block lacks), and the true edit's index."""

    source: Source
    lines: list[str]
    start: int
    stop: int

    @property
    def block(self) -> list[str]:
        return self.lines[self.start:self.stop]


def make_case(rng: random.Random, kind: str, source: Source) -> EditCase | None:
    lines = source.text.split("\n")
    found = _pick_block(rng, lines, source.text)
    if found is None:
        return None
    start, stop = found
    block = lines[start:stop]
    name, edit = rng.choice(_edits(source.style, rng))
    solid = [i for i, line in enumerate(block) if line.strip()]
    at = rng.choice(solid if name != "delete" else solid[:-1] or solid)
    file_lines = list(lines)  # the file as on disk (a stale line or a second copy changes it)
    view = list(block)  # what the model believes the block is
    endings, encoding, variant = "lf", source.encoding, name
    view_new: list[str] | None = None
    expected_block: list[str] | None = edit(block, at)
    transform: Callable[[str], str] = lambda text: text  # noqa: E731 - a slip of the whole text

    match kind:
        case "whitespace":
            how = rng.choice(["inner", "trailing", "blank"])
            variant += f"/{how}"
            if how == "blank":
                blanks = [i for i, line in enumerate(block) if not line.strip()]
                if blanks and rng.random() < 0.5:
                    view = [line for i, line in enumerate(block) if i != blanks[0]]
                    at = at - 1 if at > blanks[0] else at
                else:
                    gap = rng.randrange(1, len(block))
                    if name == "two" and gap == at + 1:
                        return None
                    view = [*block[:gap], "", *block[gap:]]
                    at = at + 1 if at >= gap else at
            else:
                for i in rng.sample(solid, k=max(1, len(solid) // 2)):
                    view[i] = _inner_space(block[i], rng) if how == "inner" else block[i] + " " * rng.randint(1, 3)
        case "indentation":
            how = rng.choice(["shift", "margin", "tabs"])
            variant += f"/{how}"
            width = min(len(_indent(line)) for line in block if line.strip())
            if how == "tabs":
                if not any(_indent(line) for line in block):
                    return None

                def tabs(text: str) -> str:
                    return "\n".join(
                        "\t" * (len(_indent(x)) // 4) + " " * (len(_indent(x)) % 4) + x.lstrip(" ") if x.strip()
                        else x for x in text.split("\n"))
                transform = tabs
            else:
                shift = -width if how == "margin" else rng.choice([2, 4, 8, -2, -4])
                shift = max(shift, -width)
                if shift == 0:
                    shift = 4

                def moved(text: str) -> str:
                    return "\n".join((" " * shift + x if shift > 0 else x[-shift:]) if x.strip() else x
                                     for x in text.split("\n"))
                transform = moved
        case "escapes":
            how = rng.choice(["newlines", "quotes", "json"])
            variant += f"/{how}"
            transform = lambda text: _escape(text, how)  # noqa: E731
        case "crlf":
            how = rng.choice(["lf-in-crlf", "lf-in-mixed", "crlf-in-lf"])
            variant += f"/{how}"
            if how == "crlf-in-lf":
                transform = lambda text: text.replace("\n", "\r\n")  # noqa: E731
            elif how == "lf-in-mixed":
                if stop >= len(lines):
                    return None
                endings = "mixed"
            else:
                endings = "crlf"
        case "lookalikes":
            curly = [i for i in solid if any(c in _FROM_CURLY for c in block[i])]
            plain = [i for i in solid if any(c in _TO_CURLY for c in block[i])]
            if curly:
                variant += "/ascii-for-curly"
                for i in curly:
                    view[i] = block[i].translate(str.maketrans(_FROM_CURLY))
            elif plain:
                variant += "/curly-for-ascii"
                for i in rng.sample(plain, k=max(1, len(plain) // 2)):
                    view[i] = "".join(rng.choice(_TO_CURLY[c]) if c in _TO_CURLY else c for c in block[i])
            else:
                return None
        case "typo":
            i = rng.choice(solid)
            slipped = _typo(block[i], rng)
            if slipped is None:
                return None
            if len(re.findall(r"[A-Za-z_]\w{3,}", slipped)) != len(re.findall(r"[A-Za-z_]\w{3,}", block[i])):
                return None  # the slip split or shortened a word: a rename would pick another word
            view[i] = slipped
            variant += "/in-edited-line" if i == at else ""
        case "missing_line":
            inner = [i for i in solid if 0 < i < len(block) - 1 and i != at and not (name == "two" and i == at + 1)]
            if not inner:
                return None
            gone = rng.choice(inner)
            view = [line for i, line in enumerate(block) if i != gone]
            variant += "/beside-edit" if abs(gone - at) == 1 else ""
            at = at - 1 if at > gone else at
        case "extra_line":
            gap = rng.randrange(1, len(block))
            if name == "two" and gap == at + 1:
                return None
            if rng.random() < 0.5:
                extra, variant = block[gap - 1], variant + "/repeated"
            else:
                others = [x for x in lines if len(x.strip()) > 6 and x not in block]
                if not others:
                    return None
                extra, variant = rng.choice(others), variant + "/foreign"
            view = [*block[:gap], extra, *block[gap:]]
            at = at + 1 if at >= gap else at
        case "elision":
            inner = [i for i in range(1, len(block) - 1) if i != at and i != at + (name in ("insert", "two"))]
            if not inner:
                return None
            first = rng.choice(inner)
            last = first
            while last + 1 in inner and last + 1 < len(block) - 1 and rng.random() < 0.6:
                last += 1
            if not any(block[i].strip() for i in range(first, last + 1)):
                return None
            marker = rng.choice([_MARKERS[source.style], "...", _LONG_MARKERS[source.style]])
            how = rng.choice(["same", "same", "other-marker", "written-out"])
            variant = f"{name}/{how}"
            edited = edit(block, at)
            moved = 0 if at > last else len(edited) - len(block)
            view = _elided(block, first, last, marker)
            if how == "written-out":
                view_new = edited
            else:
                other = marker if how == "same" else _MARKERS[source.style] if marker != _MARKERS[source.style] \
                    else "..."
                view_new = _elided(edited, first + moved, last + moved, other)
        case "stale_line":
            i = rng.choice(solid)
            changed = _stale(block[i], rng)
            if changed is None:
                return None
            file_lines[start + i] = changed
            now = list(block)
            now[i] = changed
            # the edit changes or removes the line changed since (an insertion after it has one place)
            if (i == at and name != "insert") or (name == "two" and i == at + 1 and block[i].strip()):
                variant += "/edits-the-stale-line"
                expected_block = None
            else:
                expected_block = edit(now, at)
            return _finish(rng, kind, variant, source, file_lines, start, stop, now, expected_block,
                           "\n".join(view), "\n".join(edit(view, at)), endings, encoding)
        case "duplicate":
            copy = list(block)
            identical = rng.random() < 0.25
            if not identical:
                i = rng.choice(solid)
                changed = _stale(block[i], rng)
                if changed is None:
                    return None
                copy[i] = changed
            where = rng.choice([n for n in range(len(lines)) if n + 3 < start or n > stop + 3] or [len(lines)])
            slip = rng.choice(["inner", "typo", "shift", "trailing"])
            variant += f"/{'identical' if identical else 'one-line-differs'}/{slip}"
            i = rng.choice(solid)
            if slip == "typo":
                slipped = _typo(block[i], rng)
                if slipped is None:
                    return None
                view[i] = slipped
            elif slip == "inner":
                view[i] = _inner_space(block[i], rng)
            elif slip == "trailing":
                view[i] = block[i] + "  "
            else:
                transform = lambda text: "\n".join("  " + x if x.strip() else x  # noqa: E731
                                                   for x in text.split("\n"))
            offset = 0 if where > start else len(block) + 1
            file_lines = [*lines[:where], *copy, "", *lines[where:]]
            start, stop = start + offset, stop + offset
            if identical:
                expected_block = None
    old_lines = view
    new_lines = view_new if view_new is not None else edit(view, at)
    old, new = transform("\n".join(old_lines)), transform("\n".join(new_lines))
    return _finish(rng, kind, variant, source, file_lines, start, stop, block, expected_block, old, new,
                   endings, encoding)


def _stale(line: str, rng: random.Random) -> str | None:
    """The line as someone changed it since: a number, a word, or a comment added."""
    numbers = list(re.finditer(r"\d+", line))
    words = list(re.finditer(r"[A-Za-z_]\w{3,}", line))
    choice = rng.randrange(3)
    if choice == 0 and numbers:
        m = rng.choice(numbers)
        # more than one character apart (one would read as a typo, and a typo is corrected)
        return line[:m.start()] + str(int(m.group()) + rng.randint(101, 899)) + line[m.end():]
    if choice == 1 and words:
        m = rng.choice(words)
        return line[:m.start()] + rng.choice(_WORDS) + "_" + m.group() + line[m.end():]
    return line + rng.choice(["  # TODO: revisit", " // fixed", " (updated)", "  # noqa"])


def _finish(rng: random.Random, kind: str, variant: str, source: Source, file_lines: list[str], start: int,
            stop: int, block_now: list[str], expected_block: list[str] | None, old: str, new: str,
            endings: str, encoding: str) -> EditCase | None:
    text = "\n".join(file_lines)
    true_old = "\n".join(block_now)
    if old == new or (text.count(true_old) != 1 and kind != "duplicate"):
        return None
    if kind != "crlf" and old in text:
        return None  # the slipped text is in the file: it names that place (an exact match is applied)
    elsewhere = "\n".join([*file_lines[:start], "\0", *file_lines[stop:]])
    if re.sub(r"\s+", "", old) in re.sub(r"\s+", "", elsewhere):
        return None  # another place of the file is the slipped text but for whitespace: it names that place
    true_new = "\n".join(expected_block) if expected_block is not None else true_old
    after = None if expected_block is None else [*file_lines[:start], *expected_block, *file_lines[stop:]]
    if endings == "crlf":
        text = "\r\n".join(file_lines)
        expected = None if after is None else "\r\n".join(after)
    elif endings == "mixed":  # CRLF up to the end of the block, LF after it
        text = "\r\n".join(file_lines[:stop]) + "\r\n" + "\n".join(file_lines[stop:])
        expected = None if expected_block is None else \
            "\r\n".join([*file_lines[:start], *expected_block]) + "\r\n" + "\n".join(file_lines[stop:])
    else:
        expected = None if after is None else "\n".join(after)
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return None
    return EditCase(kind, variant, source.name, text, encoding, old, new, expected, true_old, true_new)


def corpus(per_kind: int = 50, seed: int = 2026, repository: bool = True) -> list[EditCase]:
    """`per_kind` cases of every kind, the same ones for the same seed (and the same files)."""
    rng = random.Random(seed)
    files = sources(repository)
    cases: list[EditCase] = []
    for kind in KINDS:
        made, tries = 0, 0
        while made < per_kind and tries < per_kind * 200:
            tries += 1
            source = rng.choice(files)
            if kind == "lookalikes" and source.encoding == "utf-8" and rng.random() < 0.15:
                source = next(s for s in files if s.encoding != "utf-8")
            case = make_case(rng, kind, source)
            if case is not None:
                cases.append(case)
                made += 1
    return cases
