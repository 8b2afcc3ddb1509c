"""The approval policy: one decision for a 20-command pipeline (target <= 2 ms median), and what the shell
parser costs the first frame (target <= 20 ms: it must not be imported on that path at all)."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

PIPELINE = " | ".join([
    "git -C . --no-pager log --oneline", "grep -v wip", "sed -n '1,200p'", "awk '{print $1}'", "sort", "uniq -c",
    "sort -rn", "head -50", "tr a-z A-Z", "cut -c1-40", "sed 's/x/y/g'", "grep -E '^[0-9]'", "tee /dev/null",
    "nl", "rev", "rev", "cat -A", "wc -l", "xxd -p", "head -c 100",
])
TARGET_DECISION_MS = 2.0
TARGET_FIRST_FRAME_MS = 20.0


def decision_times(runs: int = 300) -> tuple[list[float], list[float]]:
    """(uncached, cached) milliseconds for parse + decide of the pipeline under a tools.allowed rule set."""
    from gemini_tui.core.approvals.policy import ApprovalPolicy, rules_from
    from gemini_tui.core.shell import grammar
    from gemini_tui.core.tooling.needs import CallNeeds

    assert PIPELINE.count("|") == 19
    allowed = rules_from("tools.allowed", [f"run_shell_command({name})" for name in (
        "git log", "grep", "sed", "awk", "sort", "uniq", "head", "tr", "cut", "tee", "nl", "rev", "cat", "wc", "xxd")])
    policy = ApprovalPolicy(allowed=allowed, exclude=rules_from("tools.exclude", ["run_shell_command(rm)"]))
    grammar.analyze(PIPELINE)  # the parser loads once (measured separately below)
    uncached, cached = [], []
    for index in range(runs):
        line = f"{PIPELINE} # {index}"  # a new string each time: no cache hit
        started = time.perf_counter()
        decision = policy.decide("run_shell_command", CallNeeds(shell=grammar.analyze(line)))
        uncached.append((time.perf_counter() - started) * 1000)
        assert decision.verdict == "allow", decision
        started = time.perf_counter()
        policy.decide("run_shell_command", CallNeeds(shell=grammar.analyze(line)))
        cached.append((time.perf_counter() - started) * 1000)
    return uncached, cached


FIRST_FRAME_PATH = ("import sys, time; t = time.perf_counter(); import gemini_tui.cli.main, gemini_tui.app.main; "
                    "print(round((time.perf_counter() - t) * 1000, 1), 'tree_sitter' in sys.modules)")
PARSER_LOAD = ("import time; t = time.perf_counter(); from gemini_tui.core.shell.grammar import analyze; "
               "analyze('ls'); print(round((time.perf_counter() - t) * 1000, 1))")


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parents[1]).stdout.strip()


def main() -> None:
    uncached, cached = decision_times()
    median = statistics.median(uncached)
    print(f"20-command pipeline, parse + decide: median {median:.3f} ms, p95 "
          f"{sorted(uncached)[int(len(uncached) * 0.95)]:.3f} ms (target <= {TARGET_DECISION_MS} ms, "
          f"ratio {median / TARGET_DECISION_MS:.2f}); repeated line (cached parse): median "
          f"{statistics.median(cached):.3f} ms")
    frame_ms, imported = _run(FIRST_FRAME_PATH).split()
    print(f"first-frame imports (cli.main + app.main): {frame_ms} ms; tree_sitter imported on that path: {imported} "
          f"(so the parser adds 0 ms to the first frame; target <= {TARGET_FIRST_FRAME_MS} ms)")
    loads = sorted(float(_run(PARSER_LOAD)) for _ in range(5))
    print(f"the parser's own load + first parse, paid at the first shell call: median {loads[2]:.1f} ms")
    assert imported == "False", "tree-sitter must load lazily, not on the first-frame path"


if __name__ == "__main__":
    main()
