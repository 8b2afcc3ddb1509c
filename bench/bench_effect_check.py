"""Benchmark: the effect check alone (the protected places fingerprinted before a command and compared after it)
on a repository with 50 nested repositories and 10,000 files (target: at most 5 ms a command, median of 50): with
inotify watching (the default on Linux), after a command that wrote an ordinary file, and with watching off (the
full look, where inotify is missing)."""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
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


def rounds(snapshot: ProtectedSnapshot, command: Callable[[], object] = lambda: None) -> tuple[float, float, int]:
    """The median wall and CPU time of before + after around `command` (outside the timing), and the paths the
    last round looked at."""
    times, cpu = [], []
    looked = 0
    for _ in range(RUNS):
        started, started_cpu = time.perf_counter(), time.process_time()
        snapshot.before()
        looked = snapshot.looked
        elapsed, elapsed_cpu = time.perf_counter() - started, time.process_time() - started_cpu
        command()
        started, started_cpu = time.perf_counter(), time.process_time()
        changes = snapshot.after(True)
        times.append((elapsed + time.perf_counter() - started) * 1000)
        cpu.append((elapsed_cpu + time.process_time() - started_cpu) * 1000)
        looked += snapshot.looked
        assert not changes, changes
    return statistics.median(times), statistics.median(cpu), looked


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
        median, median_cpu, looked = rounds(snapshot)
        ordinary = root / "src" / "lib1" / "part1"
        made = iter(range(RUNS))
        written, _, written_looked = rounds(snapshot, lambda: (ordinary / f"new{next(made)}.txt").write_text("y"))
        full = ProtectedSnapshot([root], home, watching=False)
        full.before()
        full.after(True)
        full_median, full_cpu, full_looked = rounds(full)
        watching = snapshot.watching
        snapshot.close()
        # the floor on this machine now: the same number of bare lstat calls (a loaded machine slows both)
        paths = [*full.folders, *(name for name, _ in full._watch_list())]
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
    print(f"{NESTED} nested repositories, {FILES} files, {len(full.folders)} folders listed, "
          f"{len(full.repos)} repositories found; load average now {os.getloadavg()[0]:.1f}")
    print(f"first listing, reading and watching: {first_ms:.1f} ms (once a session)")
    print(f"before + after a command, watching ({'inotify' if watching else 'NOT WATCHING: inotify unavailable'}): "
          f"{median:.2f} ms median of {RUNS} (target <= {TARGET_MS:g} ms): {verdict}; "
          f"CPU {median_cpu:.2f} ms; {looked} paths looked at")
    print(f"  after a command that made a new ordinary file: {written:.2f} ms; {written_looked} paths looked at")
    print(f"without watching (the full look): {full_median:.2f} ms, CPU {full_cpu:.2f} ms; {full_looked} paths "
          f"looked at; {full_median / median:.0f}x the watched check")
    print(f"floor of the full look: {2 * len(paths)} bare lstat calls take {floor:.2f} ms here now; the full look "
          f"is {full_median / floor:.1f}x that")


if __name__ == "__main__":
    main()
