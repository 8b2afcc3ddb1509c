"""Benchmark: `replace` on slightly wrong edits of real standard-library files (bench/edit_corpus.py).

Three runs through the real tool: the deterministic ladder alone (targets: >= 85% applied exactly, <= 0.5%
wrong edits), then with a scripted model tier that answers the true text (must lift the exact share), then
with one that answers wrong text (a wrong place, an ambiguous text, garbage; must cause no wrong edit)."""

from __future__ import annotations

import asyncio
import random
import tempfile
from collections import Counter
from pathlib import Path

from bench.edit_corpus import KINDS, EditCase, corpus
from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.models.edit_fixer import EditFix, EditFixRequest
from gemini_tui.tools.replace.tool import ReplaceTool
from gemini_tui.tools.workspace import Workspace

TARGET_EXACT = 0.85
TARGET_WRONG = 0.005


class TrueFixer:
    """A model that finds the real region: answers with the text as the file has it."""

    def __init__(self, cases: dict[str, EditCase]) -> None:
        self.cases = cases
        self.asked = 0

    async def __call__(self, request: EditFixRequest) -> EditFix | None:
        self.asked += 1
        case = self.cases[request.old_string]
        return EditFix(case.true_old, case.true_new, "fixed the whitespace")


class WrongFixer:
    """A model that answers wrong: another unique region of the file, text found twice, or invented text."""

    def __init__(self, cases: dict[str, EditCase], seed: int = 5) -> None:
        self.cases = cases
        self.rng = random.Random(seed)

    async def __call__(self, request: EditFixRequest) -> EditFix | None:
        case = self.cases[request.old_string]
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


async def _run(cases: list[EditCase], fixer: object | None) -> tuple[Counter[str], Counter[tuple[str, str]]]:
    totals: Counter[str] = Counter()
    by_kind: Counter[tuple[str, str]] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        tool = ReplaceTool(Workspace(root), fixer)  # type: ignore[arg-type]
        for index, case in enumerate(cases):
            path = root / f"{index}-{case.file}"
            path.write_bytes(case.content.encode())
            params = tool.validate_params({"file_path": str(path), "old_string": case.old, "new_string": case.new})
            assert not hasattr(params, "kind"), params
            result = await tool.execute(params, AbortSignal())  # type: ignore[arg-type]
            after = path.read_bytes().decode()
            if not result.ok:
                outcome = "refused"
                assert after == case.content
            elif after == case.expected:
                outcome = "exact"
            else:
                outcome = "wrong"
            totals[outcome] += 1
            by_kind[(case.kind, outcome)] += 1
    return totals, by_kind


def measure(per_kind: int = 40) -> dict[str, Counter[str]]:
    cases = corpus(per_kind)
    by_old = {case.old: case for case in cases}
    results: dict[str, Counter[str]] = {}
    loop = asyncio.new_event_loop()
    try:
        for name, fixer in (("ladder", None), ("ladder + true model", TrueFixer(by_old)),
                            ("ladder + wrong model", WrongFixer(by_old))):
            totals, by_kind = loop.run_until_complete(_run(cases, fixer))
            results[name] = totals
            results[name + " by kind"] = Counter({f"{k}:{o}": n for (k, o), n in by_kind.items()})
    finally:
        loop.close()
    return results


def main() -> None:
    results = measure()
    for name in ("ladder", "ladder + true model", "ladder + wrong model"):
        totals = results[name]
        count = sum(totals.values())
        exact, wrong, refused = (totals[key] / count for key in ("exact", "wrong", "refused"))
        print(f"{name:22} {count} edits: exact {exact:6.1%}  wrong {wrong:5.1%}  refused {refused:6.1%}")
    kinds = results["ladder by kind"]
    print("ladder by kind: " + ", ".join(
        f"{kind} {kinds[f'{kind}:exact']}/{sum(kinds[f'{kind}:{o}'] for o in ('exact', 'wrong', 'refused'))}"
        for kind in KINDS))
    ladder = results["ladder"]
    count = sum(ladder.values())
    print(f"targets: ladder exact >= {TARGET_EXACT:.0%} "
          f"{'OK' if ladder['exact'] / count >= TARGET_EXACT else 'MISSED'}, wrong <= {TARGET_WRONG:.1%} "
          f"{'OK' if ladder['wrong'] / count <= TARGET_WRONG else 'MISSED'}; true model lifts it "
          f"{'OK' if results['ladder + true model']['exact'] > ladder['exact'] else 'MISSED'}; wrong model adds no "
          f"wrong edit {'OK' if results['ladder + wrong model']['wrong'] == ladder['wrong'] else 'MISSED'}")


if __name__ == "__main__":
    main()
