"""Benchmark: N headless runs at once on one machine (N = 1, 4, 16), as a fleet runner starts them: wall time,
peak memory of each run, and whether any two runs shared or damaged a session file, a checkpoint or a lock.

Every run has its own fake Gemini server and a 6-step scripted task (reads, searches, a write, an edit, a command),
with checkpoints on; all runs share one home (~/.gemini), and half of them share one project folder, so their
session records and the shadow repository of checkpoints sit side by side in the same places."""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from tests.fakes.gemini_server import FakeGeminiServer
from tests.fakes.long_run import make_workspace, script

COUNTS = (1, 4, 16)
STEPS = 6
TARGET_WALL_PER_RUN_S = 30.0  # 16 runs on 2 cores: each run's share of the wall time
TARGET_PEAK_MB = 250.0
REPO = Path(__file__).resolve().parent.parent


@dataclass
class Run:
    root: Path
    code: int = -1
    peak_mb: float = 0.0
    session_id: str = ""
    stderr: str = ""


def peak_of(pid: int, run: Run) -> None:
    """Samples the run's resident high-water mark (the kernel's VmHWM) until the process ends."""
    status = Path(f"/proc/{pid}/status")
    while True:
        try:
            for line in status.read_text().splitlines():
                if line.startswith("VmHWM:"):
                    run.peak_mb = max(run.peak_mb, int(line.split()[1]) / 1024)
        except (OSError, ValueError, IndexError):
            return
        time.sleep(0.05)


def start(run: Run, home: Path, server: FakeGeminiServer) -> None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GEMINI_CLI_HOME": str(home),
           "PYTHONPATH": str(REPO), "LANG": "C.UTF-8", "GEMINI_API_KEY": "bench",
           "GOOGLE_GEMINI_BASE_URL": server.base_url, "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    process = subprocess.Popen([sys.executable, "-m", "gemini_tui", "-p", "work", "--yolo", "-o", "stream-json"],
                               cwd=run.root, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    watcher = threading.Thread(target=peak_of, args=(process.pid, run), daemon=True)
    watcher.start()
    out, err = process.communicate(timeout=600)
    watcher.join(1)
    run.code, run.stderr = process.returncode, err
    for line in out.splitlines():
        event = json.loads(line)
        if event.get("type") == "init":
            run.session_id = event["session_id"]


def launch(run: Run, home: Path, server: FakeGeminiServer) -> threading.Thread:
    thread = threading.Thread(target=start, args=(run, home, server))
    thread.start()
    return thread


def problems(runs: list[Run], home: Path) -> list[str]:
    """What two runs sharing a home or a project could break: a failed run, a session record missing, shared or
    unreadable, a damaged shadow repository, a git lock left behind."""
    os.environ["GEMINI_CLI_HOME"] = str(home)
    from gemini_tui.cli.sessions import store_for

    found = [f"run in {r.root.name} exited {r.code}: {r.stderr.strip()[-300:]}" for r in runs if r.code != 0]
    ids = [r.session_id for r in runs]
    if len(set(ids)) != len(ids) or "" in ids:
        found.append(f"session ids not distinct: {ids}")
    for root in {r.root for r in runs}:
        mine = {r.session_id for r in runs if r.root == root}
        saved = {s.id: s for s in store_for(root).summaries()}
        if set(saved) != mine:
            found.append(f"{root.name}: saved sessions {sorted(saved)} != runs {sorted(mine)}")
        found += [f"{root.name}: session {i} unreadable" for i, s in saved.items() if not s.readable]
    history = home / ".gemini" / "history"
    for git_dir in sorted(history.glob("*")) if history.is_dir() else []:
        check = subprocess.run(["git", "--git-dir", str(git_dir), "fsck", "--no-progress"], capture_output=True,
                               text=True)
        if check.returncode != 0:
            found.append(f"shadow repository {git_dir.name} damaged: {check.stderr.strip()[-300:]}")
    found += [f"lock left behind: {p}" for p in home.rglob("*.lock") if p.name.endswith((".git.lock", "index.lock",
                                                                                          "HEAD.lock"))]
    return found


def round_of(count: int, base: Path) -> tuple[float, list[Run], list[str]]:
    home = base / f"home-{count}"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({"general": {"checkpointing": {"enabled": True}}}))
    shared = base / f"shared-{count}"
    make_workspace(shared)
    runs = []
    for index in range(count):
        root = shared if index % 2 else base / f"own-{count}-{index}"
        if root != shared:
            make_workspace(root)
        runs.append(Run(root))
    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(FakeGeminiServer()) for _ in runs]
        for run, server in zip(runs, servers, strict=True):
            # the shared folder's runs write their own files: the script's paths are made unique per run
            server.script(*script(run.root, steps=STEPS, final=f"Done {id(run)}."))
        started = time.perf_counter()
        threads = [launch(run, home, server) for run, server in zip(runs, servers, strict=True)]
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - started
    return wall, runs, problems(runs, home)


def main() -> None:
    failures = 0
    with tempfile.TemporaryDirectory(prefix="bench-fleet-") as tmp:
        for count in COUNTS:
            wall, runs, found = round_of(count, Path(tmp))
            peaks = [r.peak_mb for r in runs]
            per_run = wall / count
            print(f"N={count:2d}: wall {wall:6.1f} s ({per_run:5.1f} s a run, target <= "
                  f"{TARGET_WALL_PER_RUN_S:.0f} s: {per_run / TARGET_WALL_PER_RUN_S:.2f}x); peak memory a run: median "
                  f"{statistics.median(peaks):.0f} MB, max {max(peaks):.0f} MB (target <= {TARGET_PEAK_MB:.0f} MB: "
                  f"{max(peaks) / TARGET_PEAK_MB:.2f}x); shared or damaged: {len(found)}")
            for problem in found:
                print(f"   ! {problem}")
            failures += len(found)
    print("no two runs shared or damaged a session file, a checkpoint or a lock" if not failures
          else f"{failures} problem(s) between concurrent runs")


if __name__ == "__main__":
    main()
