"""read_many_files reports its progress as live output: a count while listing, then `read N of T files`,
throttled to at most ten lines a second, ending at the total. The reporter is tested with generated report
times on a fake clock; the tool through the real scheduler on a generated folder of thousands of files."""

from __future__ import annotations

import itertools
import random
import re
import time
from pathlib import Path

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.events import CallFinished, EventBus, ToolOutputChunk
from gemini_tui.core.ground.model_api import FunctionCall
from gemini_tui.core.ground.stats import SessionStats
from gemini_tui.core.session.scheduler import Scheduler
from gemini_tui.core.tooling.progress import MAX_PER_SECOND, ProgressReporter, files_read
from gemini_tui.core.tooling.registry import ToolRegistry
from gemini_tui.tools.read_many_files import ReadManyFilesTool
from gemini_tui.tools.workspace import Workspace
from tests.core.conftest import EventLog

READ = re.compile(r"^read ([\d,]+) of ([\d,]+) files?")
FOUND = re.compile(r"^listing: ([\d,]+) files? found so far$")


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("seed", range(300))
def test_the_reporter_sends_at_most_ten_lines_a_second_and_always_the_last(seed: int) -> None:
    rng = random.Random(seed)
    clock = FakeClock()
    sent: list[tuple[float, str]] = []
    reporter = ProgressReporter(lambda line: sent.append((clock.now, line)), clock=clock)
    total = rng.randint(1, 5000)
    step = rng.choice([0.0001, 0.003, 0.02, 0.09, 0.15, 0.4])
    for done in range(total):
        clock.now += rng.uniform(0, 2 * step)
        reporter.report(files_read(done, total))
    clock.now += rng.uniform(0, 0.01)
    assert reporter.report(files_read(total, total), final=True)
    assert not reporter.report(files_read(total, total), final=True)  # the final line goes once
    times = [t for t, _ in sent]
    gaps = [b - a for a, b in itertools.pairwise(times[:-1])]  # the final line may come sooner
    assert all(gap >= 1 / MAX_PER_SECOND for gap in gaps)
    assert len(sent) <= clock.now * MAX_PER_SECOND + 2
    counts = [int(READ.match(line).group(1).replace(",", "")) for _, line in sent]  # type: ignore[union-attr]
    assert counts == sorted(counts) and counts[-1] == total and sent[-1][1].endswith("\n")
    assert sent[0][1] == files_read(0, total) + "\n"  # the first report goes at once


def test_no_output_callback_means_no_reports() -> None:
    assert not ProgressReporter(None).report("read 1 of 2 files", final=True)


async def test_a_big_folder_read_reports_a_growing_throttled_count_through_the_scheduler(root: Path) -> None:
    folder = root / "big"
    rng = random.Random(5)
    for d in range(30):
        sub = folder / f"d{d:02}"
        sub.mkdir(parents=True)
        for f in range(100):
            (sub / f"f{f:03}.txt").write_text(f"file {d}/{f}\n" + "words " * rng.randint(10, 40) + "\n")
    registry = ToolRegistry()
    registry.register(ReadManyFilesTool(Workspace(root)))
    scheduler = Scheduler(registry, EventBus(), SessionStats())
    log = EventLog(scheduler.bus)
    started = time.monotonic()
    [response] = await scheduler.run([FunctionCall("c1", "read_many_files", {"paths": ["big"]})], AbortSignal())
    elapsed = time.monotonic() - started
    await log.settle()
    assert "--- End of content ---" in response.response["output"]
    lines = [line for e in log.of(ToolOutputChunk) for line in e.chunk.splitlines()]
    assert all(e.call_id == "c1" for e in log.of(ToolOutputChunk))
    found = [int(m.group(1).replace(",", "")) for line in lines if (m := FOUND.match(line))]
    read = [(int(m.group(1).replace(",", "")), int(m.group(2).replace(",", ""))) for line in lines
            if (m := READ.match(line))]
    assert len(found) + len(read) == len(lines)  # nothing else on the live output
    assert lines.index(next(line for line in lines if READ.match(line))) == len(found)  # listing, then reading
    assert found == sorted(found) and all(n <= 3000 for n in found)
    assert [done for done, _ in read] == sorted(done for done, _ in read)
    assert {total for _, total in read} == {3000} and read[-1][0] == 3000 and len(read) >= 2
    assert len(lines) <= elapsed * MAX_PER_SECOND + 2  # throttled, whatever the machine's speed
    [finished] = log.of(CallFinished)
    assert finished.result.return_display.title == "Read 3000 file(s)"
