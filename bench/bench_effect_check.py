"""Benchmark: the effect check alone (the protected places fingerprinted before a command and compared after it)
on a repository with 50 nested repositories and 10,000 files (target: at most 5 ms a command, median of 50)."""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from gemini_tui.core.processes.protected_snapshot import ProtectedSnapshot

RUNS = 50
TARGET_MS = 5.0
NESTED = 50
FILES = 10_000
PER_FOLDER = 20


def tree(root: Path) -> None:
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@b", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", str(root)], check=True)
    (root / "GEMINI.md").write_text("notes\n")
    for repo in range(NESTED):
        subprocess.run([*git, "init", "-q", str(root / "vendor" / f"lib{repo}")], check=True)
    written = 0
    folder = 0
    while written < FILES:
        place = root / ("vendor" if folder % 5 == 0 else "src") / f"lib{folder % NESTED}" / f"part{folder}"
        place.mkdir(parents=True, exist_ok=True)
        for number in range(PER_FOLDER):
            (place / f"f{number}.txt").write_text("x")
        written += PER_FOLDER
        folder += 1


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        home = Path(tmp) / "home"
        (home / ".ssh").mkdir(parents=True)
        (home / ".bashrc").write_text("# rc\n")
        tree(root)
        snapshot = ProtectedSnapshot([root], home)
        started = time.perf_counter()
        snapshot.before()
        first_ms = (time.perf_counter() - started) * 1000
        snapshot.after(True)
        times, cpu = [], []
        for _ in range(RUNS):
            started, started_cpu = time.perf_counter(), time.process_time()
            snapshot.before()
            changes = snapshot.after(True)
            times.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - started_cpu) * 1000)
            assert not changes, changes
        median = statistics.median(times)
        median_cpu = statistics.median(cpu)
        # the floor on this machine now: the same number of bare lstat calls (a loaded machine slows both)
        paths = [*snapshot.folders, *(name for name, _ in snapshot._watch_list())]
        floors = []
        for _ in range(RUNS):
            started = time.perf_counter()
            for _ in range(2):
                for path in paths:
                    try:
                        os.lstat(path)
                    except OSError:
                        pass
            floors.append((time.perf_counter() - started) * 1000)
        floor = statistics.median(floors)
    verdict = "ok" if median <= TARGET_MS else "OVER TARGET"
    print(f"{NESTED} nested repositories, {FILES} files, {len(snapshot.folders)} folders listed, "
          f"{len(snapshot.repos)} repositories found")
    print(f"first listing and reading: {first_ms:.1f} ms (once a session)")
    print(f"before + after a command: {median:.2f} ms median of {RUNS} (target <= {TARGET_MS:g} ms): {verdict}")
    print(f"CPU time of the check: {median_cpu:.2f} ms median (a loaded machine inflates it less than the clock); "
          f"load average now {os.getloadavg()[0]:.1f}")
    print(f"floor: {2 * len(paths)} bare lstat calls take {floor:.2f} ms here now; the check is "
          f"{median / floor:.1f}x that")


if __name__ == "__main__":
    main()
