"""The correction ladder: unit cases, then slightly-wrong edits of real stdlib sources through the replace tool.

280 edits a model gets slightly wrong (over-escaped, re-indented, tabs, trailing whitespace, LF against CRLF) and 40
with a real typo that must be refused: the test prints the share fixed exactly and fails if any edit writes
anything but the intended result."""

from __future__ import annotations

import random
import re
import sysconfig
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.tool_result import ToolError
from gemini_tui.tools.replace.correction import EditMiss, EditPlan, closest_region, plan_edit, reindent, unescape
from gemini_tui.tools.replace.tool import ReplaceTool
from gemini_tui.tools.workspace import Workspace


def test_unescape() -> None:
    assert unescape(r"a\nb\tc\"d\'e\\f\`g") == "a\nb\tc\"d'e\\f`g"
    assert unescape(r"\d+ stays") == r"\d+ stays"
    assert unescape("\\") == "\\"


def test_exact_match_wins_over_corrections() -> None:
    content = 'x = "a\\n"\nx = "a\n"\n'
    plan = plan_edit(content, 'x = "a\\n"', 'x = "b\\n"')
    assert plan == EditPlan('x = "b\\n"\nx = "a\n"\n', 1, None)


def test_ambiguous_correction_is_refused() -> None:
    content = "if a:\n    pass\nif b:\n        pass\n"
    plan = plan_edit(content, "pass\n", "return\n")
    assert isinstance(plan, EditMiss) and plan.found == 2
    plan = plan_edit(content, "  pass  \n", "return\n")
    assert isinstance(plan, EditMiss) and plan.ambiguous == 2


def test_tabs_and_reindent() -> None:
    content = "def f():\n\tif x:\n\t\treturn 1\n"
    plan = plan_edit(content, "if x:\n    return 1\n", "if x:\n    return 2\n")
    assert isinstance(plan, EditPlan)
    assert plan.new_content == "def f():\n\tif x:\n\t\treturn 2\n"
    assert reindent("a\n  b\n\n c", 4, 4, False) == "    a\n      b\n\n     c"
    assert reindent("a\n    b", 4, 4, True) == "\ta\n\t\tb"


def test_expected_count_with_correction() -> None:
    content = "a = 1  \nb\na = 1\n"
    plan = plan_edit(content, "a = 1\n", "a = 2\n", expected=2)
    # the changed lines are the file's lines with the model's change: their trailing spaces stay
    assert isinstance(plan, EditPlan) and plan.new_content == "a = 2  \nb\na = 2\n"
    assert plan.correction == "ignored trailing whitespace"


def test_closest_region() -> None:
    content = "one\ntwo\nthree\nfour\nfive\n"
    assert closest_region(content, "three\nfour!\n") == (3, 4, "three\nfour")
    assert closest_region(content, "thre\n") == (3, 3, "three")
    assert closest_region(content, "zzzzzz") is None


# ----- the corpus: real source files, perturbed the ways models get edits wrong ---------------------------------

KINDS = ("over_escaped", "re_indented", "tabs_for_spaces", "trailing_whitespace", "lf_in_crlf_file",
         "lf_in_mixed_file", "escaped_and_re_indented", "typo_and_a_slip")
PER_KIND = 40


@dataclass(frozen=True)
class Case:
    kind: str
    source: Path
    original: bytes
    old_string: str
    new_string: str
    intended: bytes  # for a refusal: the original bytes


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")


def _indent_of(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" "))]


def _pick_snippet(rng: random.Random, lines: list[str], content: str, need_indent: bool) -> tuple[int, int] | None:
    for _ in range(30):
        k = rng.randint(3, 8)
        start = rng.randrange(0, max(1, len(lines) - k))
        block = lines[start:start + k]
        if len(block) < k or sum(1 for line in block if line.strip()) < 2:
            continue
        if any("\t" in line or line != line.rstrip() for line in block):
            continue
        if need_indent and not all(_indent_of(line) for line in block if line.strip()):
            continue
        if content.count("\n".join(block) + "\n") != 1:
            continue
        return start, k
    return None


def _dedent(block: list[str], amount: int) -> list[str]:
    return [line[amount:] if line.strip() else line for line in block]


def _tabify(block: list[str]) -> list[str]:
    out = []
    for line in block:
        ws = _indent_of(line)
        out.append("\t" * (len(ws) // 4) + " " * (len(ws) % 4) + line[len(ws):])
    return out


def build_corpus() -> list[Case]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    sources = sorted(p for p in stdlib.glob("*.py") if 4_000 < p.stat().st_size < 200_000)
    rng = random.Random(20261121)
    cases: list[Case] = []
    for kind in KINDS:
        made = 0
        while made < PER_KIND:
            source = rng.choice(sources)
            try:
                content = source.read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                continue
            if "\r" in content or "\t" in content:
                continue
            lines = content.split("\n")
            found = _pick_snippet(rng, lines, content, kind in ("re_indented", "tabs_for_spaces",
                                                                    "escaped_and_re_indented", "typo_and_a_slip"))
            if found is None:
                continue
            start, k = found
            block = lines[start:start + k]
            changed = rng.choice([i for i, line in enumerate(block) if line.strip()])
            new_block = list(block)
            new_block[changed] = block[changed] + "  # corrected edit"
            new_block.insert(changed + 1, _indent_of(block[changed]) + "added_line = True")
            old, new = "\n".join(block) + "\n", "\n".join(new_block) + "\n"
            intended_text = content.replace(old, new)
            original = content.encode()
            intended = intended_text.encode()
            if kind == "over_escaped":
                old, new = _escape(old), _escape(new)
            elif kind == "re_indented":
                amount = min(len(_indent_of(line)) for line in block if line.strip())
                shift = amount if made % 2 == 0 else amount - 2
                old = "\n".join(_dedent(block, shift)) + "\n"
                new = "\n".join(_dedent(new_block, shift)) + "\n"
            elif kind == "escaped_and_re_indented":
                amount = min(len(_indent_of(line)) for line in block if line.strip())
                old = _escape("\n".join(_dedent(block, amount)) + "\n")
                new = _escape("\n".join(_dedent(new_block, amount)) + "\n")
            elif kind == "typo_and_a_slip":  # one character the file does not have, then a usual slip: the
                typo = list(block)           # approximate match finds the place (the other lines are exact)
                line = typo[changed]
                at = rng.choice([i for i, char in enumerate(line) if not char.isspace()])
                typo[changed] = line[:at] + "\u00a7" + line[at + 1:]
                amount = min(len(_indent_of(line)) for line in block if line.strip())
                slip = made % 3
                old = "\n".join(_dedent(typo, amount) if slip == 1 else typo) + "\n"
                new = "\n".join(_dedent(new_block, amount) if slip == 1 else new_block) + "\n"
                old, new = (_escape(old), _escape(new)) if slip == 2 else (old, new)
            elif kind == "tabs_for_spaces":
                old, new = "\n".join(_tabify(block)) + "\n", "\n".join(_tabify(new_block)) + "\n"
            elif kind == "trailing_whitespace":
                old = "\n".join(line + (" " * (i % 3)) for i, line in enumerate(block)) + "  \n"
            elif kind == "lf_in_crlf_file":
                original = content.replace("\n", "\r\n").encode()
                intended = intended_text.replace("\n", "\r\n").encode()
            else:  # mixed: CRLF up to the end of the snippet, LF after it
                cut = sum(len(line) + 1 for line in lines[:start + k])
                head, tail = content[:cut], content[cut:]
                original = (head.replace("\n", "\r\n") + tail).encode()
                intended = (head.replace(old, new).replace("\n", "\r\n") + tail).encode()
            cases.append(Case(kind, source, original, old, new, intended))
            made += 1
    return cases


@pytest.fixture(scope="module")
def corpus() -> list[Case]:
    return build_corpus()


async def test_corpus_of_slightly_wrong_edits(corpus: list[Case], tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    root = (tmp_path / "corpus").resolve()
    root.mkdir()
    tool = ReplaceTool(Workspace(root))
    fixed: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    spaced: Counter[str] = Counter()
    wrong: list[str] = []
    for index, case in enumerate(corpus):
        target = root / f"{index:03d}_{case.source.name}"
        target.write_bytes(case.original)
        params = tool.validate_params({"file_path": str(target), "old_string": case.old_string,
                                       "new_string": case.new_string})
        assert not isinstance(params, ToolError)
        result = await tool.execute(params, AbortSignal())
        after = target.read_bytes()
        if case.kind == "typo_and_a_slip" and result.ok:
            assert "approximate match" in str(result.llm_content)
        if after == case.intended and result.ok:
            fixed[case.kind] += 1
        elif result.ok and re.sub(rb"\s+", b"", after) == re.sub(rb"\s+", b"", case.intended):
            spaced[case.kind] += 1  # a changed line's spacing as the model wrote it, where the file's is a guess
        elif after == case.original and not result.ok:
            refused[case.kind] += 1
        else:
            wrong.append(f"{case.kind} {case.source.name}: {result.llm_content[:200]}")
    total = len(corpus)
    with capsys.disabled():
        print(f"\nedit correction: {sum(fixed.values())}/{total} fixed exactly "
              f"({100 * sum(fixed.values()) / total:.1f}%), {sum(spaced.values())} differing in whitespace only, "
              f"{sum(refused.values())} refused, {len(wrong)} wrong")
        for kind in KINDS:
            print(f"  {kind:24} fixed {fixed[kind]:3d}/{PER_KIND}  refused {refused[kind]}")
    assert total == len(KINDS) * PER_KIND >= 200
    assert not wrong, wrong
    assert sum(fixed.values()) >= 0.9 * total
    assert sum(spaced.values()) <= 0.05 * total
