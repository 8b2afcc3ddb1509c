"""Benchmark: the history panel with 5,000 tool calls: adding them, one live update, filtering (headless app).

Figures are CPU time of this process: the machine may be shared, and wall time then measures the others."""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path
from typing import ClassVar

from textual.app import App, ComposeResult

from gemini_tui.app.call_log import CallLog
from gemini_tui.app.widgets.history_panel import HistoryPanel
from gemini_tui.core.ground.events import CallState, ToolCallInfo
from gemini_tui.core.ground.tool_result import ToolResult

STYLES = Path(__file__).resolve().parent.parent / "styles"
CALLS = 5000
TARGETS = {"add": 1.0, "update": 0.05, "filter": 0.05}  # seconds; a filter keystroke must feel instant
def clock() -> float:
    return time.process_time()


NAMES = ("read_file", "run_shell_command", "replace", "glob", "search_file_content")


class Harness(App[None]):
    CSS_PATH: ClassVar = [STYLES / "history.tcss"]

    def __init__(self) -> None:
        super().__init__()
        self.calls = CallLog()

    def compose(self) -> ComposeResult:
        yield HistoryPanel()


def call(n: int, state: CallState) -> ToolCallInfo:
    name = NAMES[n % len(NAMES)]
    return ToolCallInfo(f"call-{n}", name, {"path": f"/work/src/module_{n}.py"}, state,
                        description=f"src/module_{n}.py", display_name=name, started_at=1.0)


async def measure() -> dict[str, float]:
    app = Harness()
    figures: dict[str, float] = {}
    async with app.run_test(size=(120, 50)) as pilot:
        panel = app.query_one(HistoryPanel)
        await pilot.pause()
        idle = []
        for _ in range(5):
            started = clock()
            await pilot.pause()
            idle.append(clock() - started)
        figures["idle"] = statistics.median(idle)
        started = clock()
        for n in range(CALLS):
            panel.show(app.calls.update(call(n, CallState.executing)))
            panel.show(app.calls.finish(call(n, CallState.success), ToolResult("ok", "ok"), n % 900))
        await pilot.pause()
        figures["add"] = clock() - started
        updates = []
        for n in range(5):
            started = clock()
            panel.show(app.calls.update(call(CALLS + n, CallState.executing)))  # a new call: the list is rebuilt
            await pilot.pause()
            updates.append(clock() - started)
        figures["update"] = statistics.median(updates)
        filters = []
        for text in ("module_4", "shell", "module_1234", "replace 12", ""):
            started = clock()
            panel.set_filter(text)
            await pilot.pause()
            filters.append(clock() - started)
        figures["filter"] = statistics.median(filters)
    return figures


def main() -> None:
    figures = asyncio.run(measure())
    idle = figures.pop("idle")
    print(f"history panel: CPU time; the harness's wait for an idle frame ({idle * 1000:.1f} ms) is subtracted")
    labels = {"add": f"add {CALLS} calls (2 events each) until drawn", "update": "one new call with 5,000 shown",
              "filter": "filter 5,000 calls (median of 5)"}
    for key, seconds in figures.items():
        target = TARGETS[key]
        net = max(0.0, seconds - idle)
        print(f"history panel, {labels[key]}: {net * 1000:.1f} ms ({seconds * 1000:.1f} ms measured); "
              f"target <= {target * 1000:.0f} ms; ratio {net / target:.2f} {'OK' if net <= target else 'SLOW'}")


if __name__ == "__main__":
    main()
