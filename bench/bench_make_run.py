"""Benchmark: where `make run`'s time goes on a fresh clone, phase by phase, as its Makefile does them: the
virtual environment, the installer (uv, fetched by pip), resolving the dependencies, downloading them (a cold
cache against a warm one), building and installing gemini-tui, and the first frame in a real terminal (tmux)."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from bench.bench_app_launch import launch_once

REPO = Path(__file__).resolve().parent.parent
TARGET_S = 30.0  # a fresh clone's `make run` to the first frame


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="gtui-make-run-") as scratch:
        base = Path(scratch)
        clone, home = base / "clone", base / "home"
        home.mkdir()
        subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(REPO), str(clone)], check=True)
        env = {**os.environ, "UV_CACHE_DIR": str(base / "uv-cache"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        env.pop("VIRTUAL_ENV", None)
        python, uv = clone / ".venv" / "bin" / "python", clone / ".venv" / "bin" / "uv"
        phases: list[tuple[str, float]] = []
        phases.append(("virtual environment", timed(["python3", "-m", "venv", ".venv"], clone, env)))
        phases.append(("installer (pip install uv)", timed([str(python), "-m", "pip", "install", "--quiet", "uv"],
                                                          clone, env)))
        phases.append(("resolve (cold cache)", timed([str(uv), "pip", "compile", "--quiet", "pyproject.toml", "-o",
                                                     str(base / "resolved.txt")], clone, env)))
        cold = timed([str(uv), "pip", "install", "--quiet", "--python", str(python), "-e", "."], clone, env)
        # the same install again into a second environment, every download now in the cache: build and install
        second = base / "second"
        subprocess.run(["python3", "-m", "venv", str(second)], check=True, env=env)
        warm = timed([str(uv), "pip", "install", "--quiet", "--python", str(second / "bin" / "python"), "-e", "."],
                     clone, env)
        phases.append(("download (cold install - warm install)", max(cold - warm, 0.0)))
        phases.append(("build and install (warm cache)", warm))
        keeper = f"gtui-bench-keep-{uuid.uuid4().hex[:8]}"  # tmux's server must not quit between sessions
        subprocess.run(["tmux", "new-session", "-d", "-s", keeper, "sleep 600"], check=True)
        try:
            program = clone / ".venv" / "bin" / "gemini-tui"
            phases.append(("first frame (tmux)", launch_once(clone, home, {}, program=program, timeout_s=60)))
        finally:
            subprocess.run(["tmux", "kill-session", "-t", keeper], capture_output=True)
    total = sum(seconds for _, seconds in phases)
    for label, seconds in phases:
        print(f"  {label:<42} {seconds:7.1f} s  ({seconds / total:5.1%})")
    print(f"make run from a fresh clone: {total:.1f} s (target {TARGET_S:.0f} s, ratio {total / TARGET_S:.2f}); "
          f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
