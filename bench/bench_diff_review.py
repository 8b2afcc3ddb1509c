"""Benchmark: opening the diff-review modal on 10,000-line diffs and moving between hunks (headless app).

Figures are CPU time of this process (the machine may be shared, so wall time is printed too, not judged)."""

from __future__ import annotations

import asyncio
import statistics
import time

from textual.app import App

from gemini_tui.app.screens.diff_review import DiffReviewScreen
from gemini_tui.core.ground.confirmation import EditConfirmation
from gemini_tui.core.ground.display import FileDiff

LINES = 10_000


def clock() -> float:
    return time.process_time()
TARGET_OPEN = 0.3  # seconds from push to the first drawn frame
TARGET_KEY = 0.05  # a hunk move


def source(n: int, mark: str = "", every: int = 0) -> str:
    return "".join(f"def function_{i}(x):  # {mark if every and i % every == 0 else ''}\n" for i in range(n))


def long_lines(n: int, mark: str = "", every: int = 0) -> str:
    """Lines of about 300 characters (JSON-like): each wraps over several screen rows in the review."""
    return "".join(f'{{"id": {i}, "payload": "{"x" * 250}", "note": "{mark if every and i % every == 0 else ""}"}}\n'
                   for i in range(n))


CASES = {
    "1,000 lines (whole-file highlighting), 50 hunks": (source(1000), source(1000, "changed", 20)),
    "new file of 10,000 lines": ("", source(LINES)),
    "500 hunks in 10,000 lines": (source(LINES), source(LINES, "changed", 20)),
    "every line of 10,000 changed": (source(LINES), source(LINES, "changed", 1)),
    "10,000 lines of 300 characters, wrapped, 500 hunks": (long_lines(LINES), long_lines(LINES, "changed", 20)),
}


async def measure(original: str, new: str) -> dict[str, float]:
    diff = FileDiff.between("/bench/big.py", original, new)
    app = App[None]()
    figures: dict[str, float] = {}
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        idle = []
        for _ in range(3):
            started = clock()
            await pilot.pause()
            idle.append(clock() - started)
        figures["idle"] = statistics.median(idle)
        for run in ("open (first in the process)", "open (again)"):
            started, wall = clock(), time.perf_counter()
            app.push_screen(DiffReviewScreen(EditConfirmation("bench", "", diff), grace_period=0))
            await pilot.pause()
            figures[run] = clock() - started
            figures[f"wall {run}"] = time.perf_counter() - wall
            if run == "open (again)":
                break
            app.pop_screen()
            await pilot.pause()
        unbound = []
        for _ in range(3):
            started = clock()
            await pilot.press("z")  # no binding: what the harness costs per key
            unbound.append(clock() - started)
        figures["key idle"] = statistics.median(unbound)
        moves = []
        for key in ("j", "j", "j", "s", "k", "k"):
            started = clock()
            await pilot.press(key)
            moves.append(clock() - started)
        figures["key (j/k/s)"] = statistics.median(moves)
    return figures


def main() -> None:
    for label, (original, new) in CASES.items():
        figures = asyncio.run(measure(original, new))
        idle, key_idle = figures.pop("idle"), figures.pop("key idle")
        walls = {name[5:]: figures.pop(name) for name in list(figures) if name.startswith("wall ")}
        for name, seconds in figures.items():
            is_key = name.startswith("key")
            base, target = (key_idle, TARGET_KEY) if is_key else (idle, TARGET_OPEN)
            net = max(0.0, seconds - base)
            wall = f", {walls[name] * 1000:.0f} ms wall" if name in walls else ""
            print(f"diff review, {name}, {label}: {net * 1000:.1f} ms CPU ({seconds * 1000:.1f} ms measured, "
                  f"{base * 1000:.1f} ms harness{wall}); target <= {target * 1000:.0f} ms; "
                  f"ratio {net / target:.2f} {'OK' if net <= target else 'SLOW'}")


if __name__ == "__main__":
    main()
