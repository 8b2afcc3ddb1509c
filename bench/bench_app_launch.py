"""Benchmark: launch to the first interactive frame of `gemini-tui`, measured in a real terminal (tmux)."""

from __future__ import annotations

import shlex
import statistics
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GEMINI_TUI = REPO / ".venv" / "bin" / "gemini-tui"
TARGET_S = 0.5
RUNS = 5
READY_TEXT = "Ask anything"  # the prompt's placeholder: drawn once the screen can take keys


def launch_once(root: Path, home: Path, env: dict[str, str], ready: str = READY_TEXT,
                program: Path = GEMINI_TUI, timeout_s: float = 20) -> float:
    name = f"gtui-bench-{uuid.uuid4().hex[:8]}"
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in {**env, "HOME": str(home),
                                                            "GEMINI_CLI_HOME": str(home)}.items())
    command = f"cd {shlex.quote(str(root))} && env {exports} {shlex.quote(str(program))}"
    started = time.perf_counter()
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "120", "-y", "40", command], check=True)
    try:
        while time.perf_counter() - started < timeout_s:
            screen = subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True,
                                    text=True).stdout
            if ready in screen:
                return time.perf_counter() - started
            time.sleep(0.005)
        raise RuntimeError(f"gemini-tui did not draw its prompt within {timeout_s:.0f} s")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def tmux_overhead() -> float:
    """The same measurement around a command that prints the ready text at once: what tmux itself costs."""
    name = f"gtui-bench-{uuid.uuid4().hex[:8]}"
    started = time.perf_counter()
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "120", "-y", "40",
                    f"echo {READY_TEXT}; sleep 5"], check=True)
    try:
        while READY_TEXT not in subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True,
                                               text=True).stdout:
            time.sleep(0.005)
        return time.perf_counter() - started
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def main() -> None:
    # one session kept open for the whole run: tmux's server quits with its last session, and a new session asked
    # for while it quits fails ("server exited unexpectedly")
    keeper = f"gtui-bench-keep-{uuid.uuid4().hex[:8]}"
    subprocess.run(["tmux", "new-session", "-d", "-s", keeper, "sleep 3600"], check=True)
    try:
        measure()
    finally:
        subprocess.run(["tmux", "kill-session", "-t", keeper], capture_output=True)


def measure() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp) / "project", Path(tmp) / "home"
        root.mkdir()
        home.mkdir()
        (root / "README.md").write_text("# demo\n")
        # a Gemini key makes the real client the model (built, not imported); the port is never contacted
        gemini = {"GEMINI_API_KEY": "test", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"}
        offline: dict[str, str] = {}
        launch_once(root, home, gemini)  # warm the OS file cache: every later run measures the same thing
        overhead = statistics.median(tmux_overhead() for _ in range(3))
        for label, env in (("gemini model", gemini), ("offline model", offline)):
            times = [launch_once(root, home, env) for _ in range(RUNS)]
            median = statistics.median(times)
            print(f"launch to first interactive frame ({label}): median {median:.3f} s, "
                  f"min {min(times):.3f} s, max {max(times):.3f} s over {RUNS} runs; "
                  f"target <= {TARGET_S} s; ratio {median / TARGET_S:.2f}")
        times = [launch_once(root, home, gemini, ready="gemini-2.5") for _ in range(RUNS)]
        print(f"launch to session ready (model name in the status line; not a target): "
              f"median {statistics.median(times):.3f} s")
        print(f"tmux start + first capture alone: {overhead:.3f} s (included above)")


if __name__ == "__main__":
    main()
