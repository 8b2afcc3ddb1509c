"""Benchmark: what a typical command costs more with the default sandbox and the effect check after it:
run_shell_command running `git status --short` in a small repository, in bubblewrap with the check, against the
same tool without either (target: at most 25 ms extra per command, median of 50 runs)."""

from __future__ import annotations

import asyncio
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


async def median_ms(tool: ShellTool) -> float:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        result = await tool.execute(ShellParams(command=COMMAND), AbortSignal())
        times.append((time.perf_counter() - started) * 1000)
        assert result.error is None, result.llm_content
    return statistics.median(times)


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
        bare_ms = asyncio.run(median_ms(bare))
        boxed_ms = asyncio.run(median_ms(boxed))
    extra = boxed_ms - bare_ms
    verdict = "ok" if extra <= TARGET_EXTRA_MS else "OVER TARGET"
    print(f"`{COMMAND}` bare: {bare_ms:.1f} ms, in bwrap with the effect check: {boxed_ms:.1f} ms "
          f"(median of {RUNS})")
    print(f"extra per command: {extra:.1f} ms (target <= {TARGET_EXTRA_MS:g} ms): {verdict}")


if __name__ == "__main__":
    main()
