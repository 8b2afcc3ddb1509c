"""Benchmark: a scripted 500-turn session in the app: memory (RSS) and key-press latency, first turn vs last."""

from __future__ import annotations

import asyncio
import gc
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from bench.app_keys import key_latency, main_screen, pymalloc_mb, rss_mb
from gemini_tui.app.main import GeminiApp
from gemini_tui.app.widgets.chat import MAX_TURNS_SHOWN
from tests.fakes.scripted_model import ScriptedModel, call, scripted_session, text

TURNS = 500
TARGET_RSS_MB = 120.0
ANSWER = ("Here is what I found in **turn {n}**:\n\n- the entry point is `cli/main.py`\n- the app lives in `app/`\n\n"
          "```python\nprint({n})\n```\n")


def script(turns: int) -> ScriptedModel:
    model = ScriptedModel(record=False)  # the benchmark measures the app, not a recorder of 500 requests
    for n in range(turns):
        if n % 5 == 0:  # every fifth turn runs a tool first: a card, a queue entry, a history row
            model.add(call("glob", pattern="*.md"))
        model.add(text(ANSWER.format(n=n), 30))
    return model


def record_memory(figures: dict[str, float], when: str) -> None:
    gc.collect()
    figures[f"rss_{when}"] = rss_mb()
    figures[f"arenas_{when}"], figures[f"live_{when}"], figures[f"free_{when}"] = pymalloc_mb()


async def latencies(pilot: Pilot[Any], presses: int = 10) -> float:
    samples = [await key_latency(pilot) for _ in range(presses)]
    main_screen(pilot).prompt.input.clear()
    await pilot.pause()
    return statistics.median(samples)


async def measure() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp) / "project", Path(tmp) / "home"
        root.mkdir()
        home.mkdir()
        (root / "README.md").write_text("# demo\n")
        app = GeminiApp(scripted_session(root, script(TURNS), home), root)
        figures: dict[str, float] = {"rss_start": rss_mb()}
        async with app.run_test(size=(120, 40)) as pilot:
            screen = main_screen(pilot)
            started = time.perf_counter()
            for n in range(TURNS):
                screen.turns.send(f"question {n}")
                await pilot.pause()
                while screen.busy:
                    await asyncio.sleep(0.002)
                if n == 0:
                    figures["key_first"] = await latencies(pilot)
                if n + 1 == MAX_TURNS_SHOWN:  # the chat is full: from here on each new turn prunes an old one
                    record_memory(figures, "full")
            figures["wall"] = time.perf_counter() - started
            figures["key_last"] = await latencies(pilot)
            record_memory(figures, "end")
            figures["rss_end"] = rss_mb()
            figures["turns_shown"] = screen.chat.shown_turns
            figures["widgets"] = len(list(screen.chat.walk_children()))
            figures["history"] = len(screen.session.history)
    return figures


def main() -> None:
    f = asyncio.run(measure())
    print(f"{TURNS} turns ({TURNS // 5} with a tool call) in {f['wall']:.1f} s; {f['turns_shown']:.0f} turns kept on "
          f"screen ({f['widgets']:.0f} widgets in the chat), "
          f"{f['history']:.0f} contents in the session history")
    print(f"RSS: {f['rss_start']:.0f} MB at start, {f['rss_end']:.0f} MB after; target <= {TARGET_RSS_MB:.0f} MB; "
          f"ratio {f['rss_end'] / TARGET_RSS_MB:.2f}")
    for when, label in (("full", f"at turn {MAX_TURNS_SHOWN} (chat full)"), ("end", f"at turn {TURNS}")):
        print(f"  {label}: RSS {f[f'rss_{when}']:.0f} MB; Python's allocator holds {f[f'arenas_{when}']:.0f} MB of "
              f"arenas, {f[f'live_{when}']:.1f} MB live, {f[f'free_{when}']:.1f} MB freed but kept in part-used pools")
    print(f"key-press latency: first turn {f['key_first'] * 1000:.1f} ms, after {TURNS} turns "
          f"{f['key_last'] * 1000:.1f} ms (median of 10); target: no worse than the first turn; "
          f"ratio {f['key_last'] / f['key_first']:.2f}")


if __name__ == "__main__":
    main()
