"""Answers for the loop detector, built from real material on this machine (the Python standard library's
file names, sizes and docstrings): legitimately repetitive answers that must pass, and genuine loops.

`legitimate()` gives (name, text); `loops()` gives (name, prefix, unit): the answer is the prefix, then the unit
repeated until the detector stops it."""

from __future__ import annotations

import ast
import random
import sysconfig
from functools import cache
from pathlib import Path


@cache
def _stdlib_files() -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    return sorted(p for p in root.glob("*.py") if p.is_file())[:400]


@cache
def _sentences() -> list[str]:
    """First sentences of real docstrings, one line each."""
    found: list[str] = []
    for path in _stdlib_files()[:120]:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                doc = ast.get_docstring(node)
                if doc:
                    first = " ".join(doc.split("\n\n")[0].split())
                    if 20 <= len(first) <= 200 and not first.startswith((">", "|", "#", "-", "*", "+")):
                        found.append(first)
    return found or ["Return the value of the named attribute of an object."]


def _table(rng: random.Random, rows: int, identical: bool) -> str:
    head = "| File | Size | Lines | Status |\n|------|-----:|------:|--------|\n"
    body = []
    for path in rng.sample(_stdlib_files(), min(rows, len(_stdlib_files()))):
        if identical:
            body.append("| (same) | - | - | unchanged |")
        else:
            text = path.read_bytes()
            lines = text.count(b"\n")
            body.append(f"| `{path.name}` | {len(text)} | {lines} | unchanged |")
    return head + "\n".join(body) + "\n"


def legitimate(seed: int = 7) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    files = _stdlib_files()
    sentences = _sentences()
    out: list[tuple[str, str]] = []
    for n in range(5):
        out.append((f"table-{n}", "Here are the files:\n\n" + _table(rng, rng.randint(30, 150), n == 4)
                    + "\nAll of them are unchanged.\n"))
    for char in "=-*_~":
        sections = "".join(f"{char * 60}\n{rng.choice(sentences)}\n{char * 60}\n\n" for _ in range(30))
        out.append((f"dividers-{char}", "Summary of the run.\n\n" + sections))
    out.append(("setext-headings", "".join(f"Section {i}\n{'=' * 60}\n\n{rng.choice(sentences)}\n\n"
                                           for i in range(40))))
    names = [p.name for p in files]
    for n in range(5):
        picked = rng.sample(names, 15 + n * 10)
        out.append((f"path-sentence-{n}", "I changed these files: " + ", ".join(f"`Lib/{name}`" for name in picked)
                    + ". Each one now imports the new helper.\n"))
        out.append((f"path-plain-{n}", "The files are:\n" + "\n".join(f"Lib/{name}" for name in picked) + "\n"))
    out.append(("path-list", "Matching files:\n\n" + "\n".join(f"- /usr/lib/python3/{name}" for name in names)))
    for n in range(4):
        stamp = 1_700_000_000 + n * 1000
        lines = [f'"2024-05-0{n + 1} 12:{i // 60:02d}:{i % 60:02d} WARN urllib3.connectionpool Retrying '
                 f'(Retry(total={4 - i % 5}, connect=None)) after connection broken: {stamp + i}"'
                 for i in range(15 + 20 * n)]
        out.append((f"log-quoted-{n}", "The log says:\n\n" + "\n".join(lines) + "\n\nSo the server dropped it.\n"))
        out.append((f"log-blockquote-{n}", "From the log:\n\n" + "\n".join(f"> {line}" for line in lines) + "\n"))
        same = "ERROR worker-3: connection refused (will retry)\n" * (20 + 10 * n)
        out.append((f"log-fenced-identical-{n}", f"The output:\n\n```\n{same}```\n\nIt never connected.\n"))
        out.append((f"log-tilde-fence-{n}", f"The output:\n\n~~~text\n{same}~~~\n"))
    for n in range(4):
        items = [f"{i + 1}. Read `{rng.choice(names)}` and note what `{rng.choice(names)}` needs from it."
                 for i in range(100 + 50 * n)]
        out.append((f"numbered-list-{n}", "Plan:\n\n" + "\n".join(items) + "\n"))
        bullets = [f"* {rng.choice(sentences)}" for _ in range(120)]
        out.append((f"bullet-list-{n}", "\n".join(bullets) + "\n"))
        out.append((f"same-bullets-{n}", "Checks:\n" + "- passed\n" * 80))
    modules = [p.stem for p in files]
    for n in range(6):
        picked = rng.sample(modules, 40)
        style = n % 3
        if style == 0:
            sentences_ = [f"Updated `{m}.py` to import `Logger` from `core.logging` instead of `utils.log`."
                          for m in picked]
        elif style == 1:
            sentences_ = [f"In {m}.py, I replaced the call to the old helper with the new one and kept the "
                          f"behaviour the same." for m in picked]
        else:
            sentences_ = [f"The tests for {m} pass." for m in picked]
        joiner = " " if n < 3 else "\n"
        out.append((f"refactor-summary-{n}", "Here is what changed.\n\n" + joiner.join(sentences_) + "\n"))
    out.append(("headings", "".join(f"## {m}\n\nNo change needed.\n\n" for m in modules[:80])))
    out.append(("code-blocks", "".join(f"```python\nimport {m}\nprint({m}.__name__)\n```\n\n"
                                       for m in modules[:60])))
    out.append(("ellipsis-and-runs", "Working" + "." * 300 + " done.\nResult: " + "=" * 200 + "\n"))
    return out


def loops(count: int = 200, seed: int = 11) -> list[tuple[str, str, str]]:
    """Genuine loops: a prose unit (a sentence, a few sentences, a paragraph with a blank line) repeated."""
    rng = random.Random(seed)
    sentences = _sentences()
    out: list[tuple[str, str, str]] = []
    for index in range(count):
        size = rng.choice([1, 1, 2, 3, 5, 8])
        unit = " ".join(rng.sample(sentences, size))
        unit = unit[:880]
        shape = index % 4
        if shape == 1:
            unit += "\n"
        elif shape == 2:
            unit += "\n\n"
        else:
            unit += " "
        if len(unit) < 16:
            unit = unit * 2
        prefix = rng.choice(["", "Let me look at this.\n\n", "| a | b |\n|---|---|\n| 1 | 2 |\n\n",
                             "- first\n- second\n\nNow:\n"])
        out.append((f"loop-{index:03d}-{len(unit)}", prefix, unit))
    return out
