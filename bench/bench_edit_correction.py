"""Benchmark: `replace` on slightly wrong edits of real files (bench/edit_corpus.py), scored per kind of slip.

Each case is a real file in a temporary folder and one call of the real tool through its normal execute path;
the file is then read back and scored against the edit the model meant: exact, whitespace-only difference,
WRONG (the file changed to something else, or changed where only a refusal is right) or refused (nothing
written; for a case whose only right answer is a refusal, that counts as exact and is shown as such).

Three runs: the deterministic ladder alone (targets: 0 wrong, >= 85% exact), then with a scripted model tier
that answers the true text (it may only lift the exact share), then with one that answers wrong text (a wrong
place, an ambiguous text, garbage; it must add no wrong edit)."""

from __future__ import annotations

import asyncio
import random
import re
import tempfile
from collections import Counter
from pathlib import Path

from bench.edit_corpus import KINDS, EditCase, corpus
from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.models.edit_fixer import EditFix, EditFixRequest
from gemini_tui.tools.replace.tool import ReplaceTool
from gemini_tui.tools.workspace import Workspace

TARGET_EXACT = 0.85
OUTCOMES = ("exact", "whitespace", "wrong", "refused")


class TrueFixer:
    """A model that finds the real region: answers with the text as the file has it."""

    def __init__(self, cases: dict[tuple[str, str], EditCase]) -> None:
        self.cases = cases

    async def __call__(self, request: EditFixRequest) -> EditFix | None:
        case = self.cases[(request.old_string, request.new_string)]
        if case.expected is None:
            return None
        return EditFix(case.true_old, case.true_new, "copied the region")


class WrongFixer:
    """A model that answers wrong: another unique region of the file, text found twice, or invented text."""

    def __init__(self, cases: dict[tuple[str, str], EditCase], seed: int = 5) -> None:
        self.cases = cases
        self.rng = random.Random(seed)

    async def __call__(self, request: EditFixRequest) -> EditFix | None:
        case = self.cases[(request.old_string, request.new_string)]
        lines = case.content.replace("\r\n", "\n").split("\n")
        match self.rng.randrange(4):
            case 0:  # a different place in the file that does occur once
                for _ in range(50):
                    at = self.rng.randrange(0, max(1, len(lines) - 4))
                    other = "\n".join(lines[at:at + 3])
                    if other.strip() and case.content.count(other) == 1 and other not in case.true_old:
                        return EditFix(other, other + "\n# changed", "found it elsewhere")
                return None
            case 1:  # text that occurs many times
                return EditFix("\n", "\n\n", "blank line")
            case 2:  # the right place, but a replacement unrelated to new_string
                return EditFix(case.true_old, "raise SystemExit('replaced everything')", "rewrote it")
            case _:  # invented text
                return EditFix(case.old + "  # not in the file", case.new, "guess")


def _squashed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def score(case: EditCase, ok: bool, after: str) -> str:
    """One outcome of OUTCOMES for the file read back after the call."""
    if not ok or after == case.content:
        assert after == case.content, "a refused edit changed the file"
        return "exact" if case.expected is None else "refused"
    if case.expected is None:
        return "wrong"
    if after == case.expected:
        return "exact"
    return "whitespace" if _squashed(after) == _squashed(case.expected) else "wrong"


async def run(cases: list[EditCase], fixer: object | None = None,
              wrong_out: list[tuple[EditCase, str]] | None = None) -> dict[str, Counter[str]]:
    """Every case through the real tool; per kind, how many ended in each outcome."""
    by_kind: dict[str, Counter[str]] = {kind: Counter() for kind in KINDS}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        tool = ReplaceTool(Workspace(root), fixer)  # type: ignore[arg-type]
        for index, case in enumerate(cases):
            path = root / f"{index:03d}-{case.file}"
            path.write_bytes(case.content.encode(case.encoding))
            params = tool.validate_params({"file_path": str(path), "old_string": case.old, "new_string": case.new})
            assert not hasattr(params, "kind"), params
            result = await tool.execute(params, AbortSignal())  # type: ignore[arg-type]
            after = path.read_bytes().decode(case.encoding)
            outcome = score(case, result.ok, after)
            if case.expected is None and outcome == "exact":
                by_kind[case.kind]["refused as intended"] += 1
            by_kind[case.kind][outcome] += 1
            if outcome in ("wrong", "whitespace") and wrong_out is not None:
                wrong_out.append((case, str(result.llm_content)))
    return by_kind


def table(by_kind: dict[str, Counter[str]]) -> str:
    head = f"{'kind':14}{'cases':>6}{'exact':>7}{'ws-only':>9}{'WRONG':>7}{'refused':>9}   exact%"
    rows = [head]
    total: Counter[str] = Counter()
    for kind in KINDS:
        counts = by_kind[kind]
        total.update(counts)
        rows.append(_row(kind, counts))
    rows.append(_row("all", total))
    return "\n".join(rows)


def _row(name: str, counts: Counter[str]) -> str:
    cases = sum(counts[o] for o in OUTCOMES)
    share = counts["exact"] / cases if cases else 0.0
    intended = f"  ({counts['refused as intended']} of them a refusal, as intended)" if counts[
        "refused as intended"] else ""
    return (f"{name:14}{cases:6d}{counts['exact']:7d}{counts['whitespace']:9d}{counts['wrong']:7d}"
            f"{counts['refused']:9d}   {share:6.1%}{intended}")


def totals(by_kind: dict[str, Counter[str]]) -> Counter[str]:
    out: Counter[str] = Counter()
    for counts in by_kind.values():
        out.update(counts)
    return out


def main(per_kind: int = 50) -> None:
    cases = corpus(per_kind)
    keyed = {(case.old, case.new): case for case in cases}
    loop = asyncio.new_event_loop()
    try:
        wrong: list[tuple[EditCase, str]] = []
        ladder = loop.run_until_complete(run(cases, None, wrong))
        print(f"{len(cases)} slightly wrong edits of real files, the deterministic ladder alone:")
        print(table(ladder))
        for case, said in wrong[:10]:
            print(f"  not exact: {case.kind}/{case.variant} {case.file}: {said[:160]!r}")
        results = {"ladder": totals(ladder)}
        for name, fixer in (("ladder + true model", TrueFixer(keyed)), ("ladder + wrong model", WrongFixer(keyed))):
            results[name] = totals(loop.run_until_complete(run(cases, fixer)))
    finally:
        loop.close()
    for name, counts in results.items():
        count = sum(counts[o] for o in OUTCOMES)
        print(f"{name:22} {count} edits: exact {counts['exact'] / count:6.1%}  ws-only {counts['whitespace']}  "
              f"wrong {counts['wrong']}  refused {counts['refused']}")
    base = results["ladder"]
    count = sum(base[o] for o in OUTCOMES)
    print(f"targets: 0 wrong {'OK' if base['wrong'] == 0 else 'MISSED'}; exact >= {TARGET_EXACT:.0%} "
          f"{'OK' if base['exact'] / count >= TARGET_EXACT else 'MISSED'} ({base['exact'] / count:.1%}); the true "
          f"model adds no wrong edit {'OK' if results['ladder + true model']['wrong'] == base['wrong'] else 'MISSED'}"
          f"; the wrong model adds none "
          f"{'OK' if results['ladder + wrong model']['wrong'] == base['wrong'] else 'MISSED'}")


if __name__ == "__main__":
    main()
