"""Benchmark: the cost of the bubblewrap sandbox per command: run_shell_command running `true` in the sandbox
against the same tool without one (target: at most 30 ms extra per command, median of many runs)."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.processes.sandbox import SandboxRequest, build_sandbox
from gemini_tui.tools.shell.tool import ShellParams, ShellTool
from gemini_tui.tools.workspace import Workspace

RUNS = 40
TARGET_EXTRA_MS = 30.0


async def median_ms(tool: ShellTool) -> float:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        result = await tool.execute(ShellParams(command="true"), AbortSignal())
        times.append((time.perf_counter() - started) * 1000)
        assert result.error is None, result.llm_content
    return statistics.median(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sandbox = build_sandbox(SandboxRequest("true", "bench"), [root])
        if sandbox.problem is not None:
            print(f"bubblewrap cannot run here: {sandbox.problem}")
            return
        bare = ShellTool(Workspace(root))
        boxed = ShellTool(Workspace(root), sandbox=sandbox)
        asyncio.run(median_ms(boxed))  # warm caches (bwrap binary, bash) before measuring either
        bare_ms = asyncio.run(median_ms(bare))
        boxed_ms = asyncio.run(median_ms(boxed))
    extra = boxed_ms - bare_ms
    verdict = "ok" if extra <= TARGET_EXTRA_MS else "OVER TARGET"
    print(f"`true` unsandboxed: {bare_ms:.1f} ms, in bwrap: {boxed_ms:.1f} ms (median of {RUNS})")
    print(f"extra per command: {extra:.1f} ms (target <= {TARGET_EXTRA_MS:g} ms): {verdict}")


if __name__ == "__main__":
    main()
