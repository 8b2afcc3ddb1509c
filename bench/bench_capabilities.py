"""Judging a command by what it can do: parse + expand + capability table + decision, for a typical command
(target <= 1 ms median) and for a 200-line script (target <= 20 ms median), each line new (no parse cache)."""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

TARGET_TYPICAL_MS = 1.0
TARGET_SCRIPT_MS = 20.0
TYPICAL = [
    "git status", "git diff --stat", "ls -la src", "cat README.md | rg -n foo", "git log --oneline -5",
    "rg -i 'a|b' -g '*.py' src", "echo done && ls", "sed -n '1,20p' README.md", "find . -name '*.py' -type f",
    "sort -u README.md | head -20",
]
SCRIPT_LINES = [
    "cd src && ls -la", "for f in *.py; do wc -l \"$f\"; done", "git diff --name-only | xargs rg -l TODO",
    "if [ -f README.md ]; then cat README.md; fi", "echo \"$HOME\" > /dev/null", "sed -n 's/a/b/p' README.md",
    "find . -maxdepth 2 -name '*.md' -print", "sort -o out.txt README.md", "tar -czf out.tgz src",
    "git log --format='%h %s' -n 3", "grep -rn foo src || true", "printf '%s\\n' a b c | sort", "make -n",
]


def _policy(root: Path):  # type: ignore[no-untyped-def]
    from gemini_tui.core.approvals.policy import ApprovalPolicy, ProtectedPaths, rules_from

    rules = ["echo", "ls", "cat", "git status", "git diff", "git log", "rg", "sed", "find", "sort", "head", "wc",
             "grep", "printf", "tar", "make", "cd", "xargs"]
    return ApprovalPolicy(allowed=rules_from("tools.allowed", [f"run_shell_command({r})" for r in rules]),
                          exclude=rules_from("tools.exclude", ["run_shell_command(rm)"]),
                          protected=ProtectedPaths(root, root / "home" / ".gemini"))


def timings(root: Path, runs: int = 300, clock: object = time.perf_counter) -> tuple[list[float], list[float]]:
    """Milliseconds per decision (parse included) for typical lines and 200-line scripts, by `clock`."""
    from gemini_tui.core.shell import grammar
    from gemini_tui.core.tooling.needs import CallNeeds

    policy = _policy(root)
    grammar.analyze("ls")  # the parser loads once (bench_policy measures that load)
    typical: list[float] = []
    for index in range(runs):
        line = f"{TYPICAL[index % len(TYPICAL)]} # {id(clock)} {index}"  # new text: no parse cache hit
        started = clock()  # type: ignore[operator]
        policy.decide("run_shell_command", CallNeeds(shell=grammar.analyze(line), cwd=str(root)))
        typical.append((clock() - started) * 1000)  # type: ignore[operator]
    script: list[float] = []
    for index in range(max(runs // 10, 20)):
        text = "\n".join(f"{SCRIPT_LINES[n % len(SCRIPT_LINES)]} # {id(clock)} {index}.{n}" for n in range(200))
        assert text.count("\n") == 199
        started = clock()  # type: ignore[operator]
        policy.decide("run_shell_command", CallNeeds(shell=grammar.analyze(text), cwd=str(root)))
        script.append((clock() - started) * 1000)  # type: ignore[operator]
    return typical, script


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder).resolve()
        (root / "src").mkdir()
        (root / "src" / "a.py").write_text("x\n")
        (root / "README.md").write_text("foo\n")
        subprocess.run(["git", "init", "-q", str(root)], check=True, env={**os.environ, "GIT_CONFIG_GLOBAL": ""})
        typical, script = timings(root)
        # CPU time too: on a shared machine the wall clock counts the time other processes held the cores
        cpu_typical, cpu_script = timings(root, clock=time.process_time)
    for label, values, cpu, target in (("typical command", typical, cpu_typical, TARGET_TYPICAL_MS),
                                       ("200-line script", script, cpu_script, TARGET_SCRIPT_MS)):
        median = statistics.median(values)
        p95 = sorted(values)[int(len(values) * 0.95)]
        print(f"{label}, parse + judge + decide: median {median:.3f} ms, p95 {p95:.3f} ms, CPU median "
              f"{statistics.median(cpu):.3f} ms (target <= {target} ms, ratio {median / target:.2f})")


if __name__ == "__main__":
    main()
