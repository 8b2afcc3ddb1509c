"""Benchmark: launch to the first frame of the installed `gemini-tui` against a bare Textual app with the same kinds
of widgets (`bench/bare_app.py`), in turn (A B A B ...) in a real terminal (tmux), with the ratio pair by pair and
each one's resident memory and CPU time at that frame (CPU seconds move less with the machine's load than wall
time: each program's own mark of its first frame says how much it had used, what the app controls); the machine's
load average is printed beside the figures, and each ratio as its median with its quartiles. Then where the time
goes: an import-time profile (`-X importtime`), the app's own timeline (`GEMINI_TUI_START_MARKS`), and the Python
function calls each makes to its first frame (a count the load hardly moves). `python -m bench first_frame`;
GEMINI_TUI_BENCH_APP names another `gemini-tui` (an installed wheel's), GEMINI_TUI_BENCH_RUNS the pairs (default
15)."""

from __future__ import annotations

import json
import math
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parent.parent
APP = Path(os.environ.get("GEMINI_TUI_BENCH_APP", REPO / ".venv" / "bin" / "gemini-tui"))
PYTHON = APP.parent / "python"
READY_TEXT = "Ask anything"  # both apps' prompt placeholder: drawn once the screen takes keys
RUNS = int(os.environ.get("GEMINI_TUI_BENCH_RUNS", "15"))
TIME_TARGET, MEMORY_TARGET = 1.1, 1.5  # ratios to the bare app


def cpu_s(pid: int) -> float:
    """CPU seconds (user and system) `pid` has used so far."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime: fields 14 and 15


def rss_mb(pid: int) -> float:
    """Resident memory of `pid` and its children (the app may run helpers), in MB."""
    total = 0
    for line in subprocess.run(["ps", "-o", "rss=", "--ppid", str(pid), "-p", str(pid)], capture_output=True,
                               text=True).stdout.split():
        total += int(line)
    return total / 1024


class Launch(NamedTuple):
    seconds: float  # to the first frame, as seen in the terminal
    mb: float  # resident then
    cpu_seen: float  # CPU seconds used when the frame was seen (work done right after it may be in)
    cpu: float  # CPU seconds used at the program's own mark of its first frame


def launch(command: str, cwd: Path, env: dict[str, str]) -> Launch:
    """One launch of `command` in a new tmux window, to its first frame."""
    with tempfile.TemporaryDirectory() as tmp:
        marks = Path(tmp) / "marks.jsonl"
        cpu: list[float] = []
        seconds, mb, cpu_seen = _launch(command, cwd, {**env, "GEMINI_TUI_START_MARKS": str(marks)},
                                        lambda: cpu.append(_first_frame_cpu(marks)))
        return Launch(seconds, mb, cpu_seen, cpu[0])


def _first_frame_cpu(marks: Path) -> float:
    deadline = time.perf_counter() + 10
    while time.perf_counter() < deadline:  # written as the frame is drawn: there by now, or a moment after
        lines = marks.read_text().splitlines() if marks.exists() else []
        for entry in map(json.loads, lines):
            if entry["step"] == "first frame":
                return float(entry.get("cpu", "nan"))  # an older app marks no CPU
        time.sleep(0.01)
    raise RuntimeError("no first-frame mark")


def _launch(command: str, cwd: Path, env: dict[str, str],
            then: Callable[[], object] = lambda: None) -> tuple[float, float, float]:
    """(seconds to the first frame, MB resident then, CPU seconds used by then); `then` runs before the program is
    ended."""
    name = f"gtui-ff-{uuid.uuid4().hex[:8]}"
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    started = time.perf_counter()
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "120", "-y", "40",
                    f"cd {shlex.quote(str(cwd))} && exec env {exports} {command}"], check=True)
    try:
        pid = int(subprocess.run(["tmux", "display", "-p", "-t", name, "#{pane_pid}"], capture_output=True,
                                 text=True).stdout.strip())
        while time.perf_counter() - started < 30:
            if READY_TEXT in subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True,
                                            text=True).stdout:
                seen = time.perf_counter() - started, rss_mb(pid), cpu_s(pid)
                then()
                return seen
            time.sleep(0.004)
        raise RuntimeError(f"no first frame within 30 s: {command}")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def compile_bytecode() -> None:
    """The app's modules compiled ahead, as an installed wheel's are: a launch with PYTHONDONTWRITEBYTECODE set (or
    a source tree never run) would otherwise compile every module it imports, a cost no user's install pays."""
    code = ("import importlib.util as u\nfor name in ('app', 'cli', 'core', 'tools', 'styles'):\n"
            "    print(*u.find_spec('gemini_tui.' + name).submodule_search_locations, sep='\\n')")
    folders = subprocess.run([str(PYTHON), "-c", code], capture_output=True, text=True, check=True,
                             cwd=tempfile.gettempdir()).stdout.split()  # the app's own modules, not this tree's
    subprocess.run([str(PYTHON), "-m", "compileall", "-q", *folders], capture_output=True, check=True)


def import_profile(top: int = 12) -> list[tuple[int, str]]:
    """The modules that cost most to import on the app's way to its first frame (cumulative microseconds)."""
    code = ("import gemini_tui.cli.main, gemini_tui.app.main, gemini_tui.app.screens.main_screen")
    result = subprocess.run([str(PYTHON), "-X", "importtime", "-c", code], capture_output=True, text=True,
                            cwd=tempfile.gettempdir())
    rows: list[tuple[int, str]] = []
    for line in result.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _self, cumulative, name = (part.strip() for part in line[len("import time:"):].split("|"))
        if name.count(" ") < 4:  # top-level imports and their first levels: the parts, not every leaf
            rows.append((int(cumulative), name))
    return sorted(rows, reverse=True)[:top]


# Python function calls to the first frame, counted by cProfile in each program: unlike seconds, the count hardly
# moves with the machine's load, so a change's effect shows even on a busy machine. Each script writes the count to
# the file in argv[1] once the first frame is drawn, and ends.
APP_CALLS = """
import cProfile, os, sys
import gemini_tui.core.ground.start_marks as marks
profile = cProfile.Profile()
out = sys.argv[1]
def mark(step):
    if step == "first frame":
        profile.disable()
        open(out, "w").write(str(sum(s[1] for s in profile.getstats())))
        os._exit(0)
marks.mark = mark  # before the app's modules import it by name
profile.enable()
from gemini_tui.cli.main import main
sys.argv = ["gemini-tui"]
main()
"""
BARE_CALLS = """
import cProfile, os, sys
profile = cProfile.Profile()
profile.enable()
sys.path.insert(0, sys.argv[2])
from bare_app import BareApp
class Counted(BareApp):
    def on_mount(self):
        self.call_after_refresh(self.counted)
    def counted(self):
        profile.disable()
        open(sys.argv[1], "w").write(str(sum(s[1] for s in profile.getstats())))
        os._exit(0)
Counted().run()
"""


def python_calls(script: str, cwd: Path, env: dict[str, str], *extra: str) -> int:
    """Python function calls to the first frame of the program `script` starts, in a new tmux window."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "calls"
        name = f"gtui-ff-{uuid.uuid4().hex[:8]}"
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        command = shlex.join([str(PYTHON), "-c", script, str(out), *extra])
        subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "120", "-y", "40",
                        f"cd {shlex.quote(str(cwd))} && exec env {exports} {command}"], check=True)
        try:
            deadline = time.perf_counter() + 60
            while time.perf_counter() < deadline:
                if out.exists() and (text := out.read_text()):
                    return int(text)
                time.sleep(0.05)
            raise RuntimeError("no first frame within 60 s (counting calls)")
        finally:
            subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def timeline(cwd: Path, env: dict[str, str]) -> list[dict[str, object]]:
    with tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False) as marks:
        path = Path(marks.name)
    try:
        def built() -> None:  # the session is built after the first frame, on a thread: its mark comes later
            deadline = time.perf_counter() + 10
            while "session built" not in path.read_text() and time.perf_counter() < deadline:
                time.sleep(0.05)

        _launch(shlex.quote(str(APP)), cwd, {**env, "GEMINI_TUI_START_MARKS": str(path)}, built)
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    finally:
        path.unlink(missing_ok=True)


def ratio(pairs: list[tuple[Launch, Launch]], field: str) -> list[float]:
    return [getattr(a, field) / getattr(b, field) for a, b in pairs]


def spread(ratios: list[float]) -> str:
    """The median ratio with its quartiles (half the pairs lie between them) and its extremes."""
    if any(math.isnan(r) for r in ratios):
        return "n/a"
    low, _, high = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else (ratios[0],) * 3
    return (f"median {statistics.median(ratios):.2f}x (quartiles {low:.2f}-{high:.2f}, min {min(ratios):.2f}, "
            f"max {max(ratios):.2f})")


def main() -> None:
    keeper = f"gtui-ff-keep-{uuid.uuid4().hex[:8]}"  # tmux's server quits with its last session: keep one open
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
        env = {"HOME": str(home), "GEMINI_CLI_HOME": str(home), "TERM": "xterm-256color"}
        app = shlex.quote(str(APP))
        bare = f"{shlex.quote(str(PYTHON))} {shlex.quote(str(REPO / 'bench' / 'bare_app.py'))}"
        compile_bytecode()
        launch(app, root, env)  # warm the file cache for both
        launch(bare, root, env)
        load_before = os.getloadavg()[0]
        pairs: list[tuple[Launch, Launch]] = []
        loads: list[float] = []
        for _ in range(RUNS):
            pairs.append((launch(app, root, env), launch(bare, root, env)))
            loads.append(os.getloadavg()[0])
        print(f"first frame, gemini-tui (offline model) vs a bare Textual app, {RUNS} pairs A B A B, on "
              f"{os.cpu_count()} cores; load average (1 min) {load_before:.2f} before, {min(loads):.2f}-"
              f"{max(loads):.2f} during:")
        for label, field, unit in (("time", "seconds", "s"), ("memory", "mb", "MB"), ("CPU", "cpu", "s")):
            a = [getattr(p[0], field) for p in pairs]
            b = [getattr(p[1], field) for p in pairs]
            print(f"  {label}: gemini-tui median {statistics.median(a):.3f} {unit} (min {min(a):.3f}, "
                  f"max {max(a):.3f}); bare median {statistics.median(b):.3f} {unit} "
                  f"(min {min(b):.3f}, max {max(b):.3f})")
        times = ratio(pairs, "seconds")
        print(f"  ratio time: {spread(times)}; target <= {TIME_TARGET}x: "
              f"{'met' if statistics.median(times) <= TIME_TARGET else 'NOT met'} by the median")
        print(f"  ratio CPU to the first frame (each one's own mark; what the app controls): "
              f"{spread(ratio(pairs, 'cpu'))}")
        print(f"  ratio CPU when the frame was seen (work right after it may be in): "
              f"{spread(ratio(pairs, 'cpu_seen'))}")
        memory = ratio(pairs, "mb")
        print(f"  ratio memory: {spread(memory)}; target <= {MEMORY_TARGET}x")
        app_calls = python_calls(APP_CALLS, root, env)
        bare_calls = python_calls(BARE_CALLS, root, env, str(REPO / "bench"))
        print(f"  Python calls to the first frame (cProfile; hardly moves with the load): gemini-tui {app_calls}, "
              f"bare {bare_calls}, ratio {app_calls / bare_calls:.2f}x")
        print("import time on the way to the first frame (cumulative, the costliest):")
        for micros, name in import_profile():
            print(f"  {micros / 1000:8.1f} ms  {name.strip()}")
        print("the app's own start (seconds since the process began):")
        for entry in timeline(root, env):
            seconds = f"{entry['s']:.3f}" if entry["s"] is not None else "?"
            print(f"  {seconds}  {entry['step']}  (CPU {entry.get('cpu', math.nan):.3f} s)")


if __name__ == "__main__":
    sys.exit(main())
