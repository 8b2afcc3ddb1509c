"""`make run` from a fresh clone, as a newcomer types it: it sets up the virtual environment and starts the program
without printing a warning (setuptools' licence-table deprecation and its editable-install note reached them)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(300)

# this machine's pip configuration names package folders that may be absent: pip's words about its own
# configuration, which a newcomer's machine does not have
MACHINE_PIP_CONFIG = "WARNING: Location '"


def test_make_run_from_a_fresh_clone_prints_no_warning(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(REPO), str(clone)], check=True)
    for name in ("Makefile", "pyproject.toml"):  # what the checkout has now, committed or not
        (clone / name).write_bytes((REPO / name).read_bytes())
    # PIP_NO_DEPS: the project's own build and install, without downloading every dependency again
    env = {**os.environ, "PIP_NO_DEPS": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("VIRTUAL_ENV", None)
    for name in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS"):  # under `make test` the inner make would print its directory
        env.pop(name, None)
    done = subprocess.run(["make", "run", "ARGS=--version"], cwd=clone, env=env, capture_output=True, text=True,
                          timeout=280)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines()[-1].startswith("gemini-tui ")
    said = [line for line in done.stderr.splitlines() if line.strip() and not line.startswith(MACHINE_PIP_CONFIG)]
    assert said == [], "\n".join(said)
