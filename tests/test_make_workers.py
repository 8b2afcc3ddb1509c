"""`make test` (and so CI) runs the suite on at least two workers, whatever PYTEST_WORKERS or PYTEST_ARGS say."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def workers(target: str, **env: str) -> list[int]:
    """The `-n` values pytest is given by `make -n TARGET` (the last one is the one pytest keeps)."""
    printed = subprocess.run(["make", "-n", target], cwd=REPO, env={**os.environ, **env}, capture_output=True,
                             text=True, timeout=60, check=True).stdout
    line = next(line for line in printed.splitlines() if "pytest" in line and re.search(r"\s-n\s+\d", line))
    return [int(n) for n in re.findall(r"(?:^|\s)-n\s+(\d+)", line)]


@pytest.mark.parametrize("asked", ["", "0", "1", "-3", "two", "1.9", "2", "3"])
@pytest.mark.parametrize("target", ["test", "check"])
def test_the_suite_never_runs_on_fewer_than_two_workers(target: str, asked: str) -> None:
    given = workers(target, PYTEST_WORKERS=asked, PYTEST_ARGS="-n 0")
    assert given[-1] >= 2
    if asked.isdigit() and int(asked) > 2:
        assert given[-1] == int(asked)


def test_by_default_two_workers_more_than_the_cores() -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_WORKERS"}
    printed = subprocess.run(["make", "-n", "test"], cwd=REPO, env=env, capture_output=True, text=True, timeout=60,
                             check=True).stdout
    line = next(line for line in printed.splitlines() if "pytest" in line and re.search(r"\s-n\s+\d", line))
    cores = os.cpu_count() or 1
    assert re.findall(r"(?:^|\s)-n\s+(\d+)", line)[-1] == str(max(2, (len(os.sched_getaffinity(0)) or cores) + 2))


def test_every_pytest_make_test_runs_is_on_two_workers_at_least() -> None:
    """The suite's and Harbor's (run beside it): none of them on one core."""
    printed = subprocess.run(["make", "-n", "test"], cwd=REPO, env={**os.environ, "PYTEST_WORKERS": "1"},
                             capture_output=True, text=True, timeout=60, check=True).stdout
    runs = [part for line in printed.splitlines() if not line.startswith("echo")
            for part in re.split(r"[;&|]+", line) if re.search(r"bin/pytest\s", part)]
    assert len(runs) == 2, runs
    for run in runs:
        given = re.findall(r"(?:^|\s)-n\s+(\d+)", run)
        assert given and int(given[-1]) >= 2, run
