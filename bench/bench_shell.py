"""Benchmark: run_shell_command throughput and latency against bash run directly: 100 MB of output through the
streaming, capped capture (target <= 2x the time of `bash -c ... > /dev/null` reading the same pipe), the first
streamed chunk (target <= 50 ms), and ending a 200-process group on timeout (target <= 1 s)."""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.tooling.tool import CallContext
from gemini_tui.tools.shell.tool import ShellParams, ShellTool
from gemini_tui.tools.workspace import Workspace

MEGABYTES = 100
# 100 MB of 100-byte lines, written by one process so both sides measure the same producer
PRODUCER = f"head -c {MEGABYTES * 1_000_000} /dev/zero | tr '\\0' 'x' | fold -w 99"
TARGET_RATIO = 2.0
TARGET_FIRST_CHUNK_MS = 50.0
TARGET_GROUP_END_S = 1.0
RUNS = 3


def direct_seconds() -> float:
    started = time.perf_counter()
    with subprocess.Popen(["bash", "-c", PRODUCER], stdout=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        while proc.stdout.read(65536):
            pass
    return time.perf_counter() - started


async def tool_seconds(tool: ShellTool) -> tuple[float, int]:
    received = 0

    def count(chunk: str) -> None:
        nonlocal received
        received += len(chunk)

    started = time.perf_counter()
    result = await tool.execute(ShellParams(command=PRODUCER), AbortSignal(), CallContext(on_output=count))
    elapsed = time.perf_counter() - started
    saved = getattr(result.return_display, "saved_to", None)
    if saved:
        Path(saved).unlink(missing_ok=True)
    return elapsed, received


async def first_chunk_ms(tool: ShellTool) -> float:
    loop = asyncio.get_running_loop()
    first: list[float] = []
    started = loop.time()
    await tool.execute(ShellParams(command="echo ready; sleep 0.3"), AbortSignal(),
                       CallContext(on_output=lambda _: first or first.append(loop.time() - started)))
    return first[0] * 1000


async def group_end_seconds(workspace: Workspace) -> float:
    tool = ShellTool(workspace, total_timeout_s=0.5)
    command = "for i in $(seq 200); do sleep 60 & done; echo spawned; wait"
    started = time.perf_counter()
    await tool.execute(ShellParams(command=command), AbortSignal())
    return time.perf_counter() - started - 0.5


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Workspace(tmp)
        tool = ShellTool(workspace)
        direct = statistics.median(direct_seconds() for _ in range(RUNS))
        runs = [asyncio.run(tool_seconds(tool)) for _ in range(RUNS)]
        through = statistics.median(seconds for seconds, _ in runs)
        received = runs[0][1]
        latency = statistics.median(asyncio.run(first_chunk_ms(tool)) for _ in range(RUNS))
        ending = asyncio.run(group_end_seconds(workspace))
    ratio = through / direct
    print(f"output: {received / 1e6:.0f} MB streamed; bash direct {direct:.2f} s, run_shell_command {through:.2f} s "
          f"({received / 1e6 / through:.0f} MB/s); ratio {ratio:.2f}x (target <= {TARGET_RATIO}x) "
          f"{'OK' if ratio <= TARGET_RATIO else 'MISSED'}")
    print(f"first streamed chunk: {latency:.1f} ms (target <= {TARGET_FIRST_CHUNK_MS:.0f} ms) "
          f"{'OK' if latency <= TARGET_FIRST_CHUNK_MS else 'MISSED'}")
    print(f"ending a 200-process group after its timeout: {ending:.2f} s (target <= {TARGET_GROUP_END_S} s) "
          f"{'OK' if ending <= TARGET_GROUP_END_S else 'MISSED'}")


if __name__ == "__main__":
    main()
