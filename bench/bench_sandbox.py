"""Benchmark: what a typical command costs more with the default sandbox and the effect check after it:
run_shell_command running `git status --short` in a small repository, in bubblewrap with the check, against the
same tool without either (target: at most 25 ms extra per command, median of 50 runs)."""

from __future__ import annotations

import asyncio
import os
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.processes.protected_snapshot import Change, ProtectedSnapshot
from gemini_tui.core.processes.sandbox import SandboxRequest, build_sandbox
from gemini_tui.tools.shell.tool import ShellParams, ShellTool
from gemini_tui.tools.workspace import Workspace

RUNS = 50
TARGET_EXTRA_MS = 25.0
COMMAND = "git status --short"


class _Unchecked(ProtectedSnapshot):
    """The baseline: no fingerprints before, nothing compared after."""

    def before(self) -> None:
        return None

    def after(self, undo: bool) -> list[Change]:
        return []


def project(root: Path) -> None:
    for folder in range(20):
        (root / f"pkg{folder}").mkdir()
        for number in range(15):
            (root / f"pkg{folder}" / f"m{number}.py").write_text(f"x = {number}\n")
    (root / "GEMINI.md").write_text("notes\n")
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@b", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "start"], check=True)


def cpu_s() -> float:
    """CPU time of this process and of its finished children (bwrap, bash, git): what a command costs in work,
    which a loaded machine inflates far less than the time on the clock."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


async def median_ms(tool: ShellTool) -> tuple[float, float]:
    """Median wall time and median CPU time of one command, in ms."""
    times, cpu = [], []
    for _ in range(RUNS):
        started, started_cpu = time.perf_counter(), cpu_s()
        result = await tool.execute(ShellParams(command=COMMAND), AbortSignal())
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((cpu_s() - started_cpu) * 1000)
        assert result.error is None, result.llm_content
    return statistics.median(times), statistics.median(cpu)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project(root)
        sandbox = build_sandbox(SandboxRequest("true", "bench"), [root])
        if sandbox.problem is not None:
            print(f"bubblewrap cannot run here: {sandbox.problem}")
            return
        bare = ShellTool(Workspace(root))
        bare._snapshot = _Unchecked([root])
        boxed = ShellTool(Workspace(root), sandbox=sandbox)
        asyncio.run(median_ms(boxed))  # warm caches (bwrap binary, bash, git) before measuring either
        bare_ms, bare_cpu = asyncio.run(median_ms(bare))
        boxed_ms, boxed_cpu = asyncio.run(median_ms(boxed))
    extra = boxed_ms - bare_ms
    verdict = "ok" if extra <= TARGET_EXTRA_MS else "OVER TARGET"
    print(f"`{COMMAND}` bare: {bare_ms:.1f} ms, in bwrap with the effect check: {boxed_ms:.1f} ms "
          f"(median of {RUNS})")
    print(f"extra per command: {extra:.1f} ms (target <= {TARGET_EXTRA_MS:g} ms): {verdict}")
    print(f"CPU time (this process and its children): bare {bare_cpu:.1f} ms, in bwrap with the check "
          f"{boxed_cpu:.1f} ms, extra {boxed_cpu - bare_cpu:.1f} ms; load average now "
          f"{os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
