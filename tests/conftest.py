"""Shared fixtures: a temporary workspace root per test; the user's real ~/.gemini is never read."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools.workspace import Workspace


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A real directory used as the workspace root (resolved, so symlinked /tmp does not confuse checks)."""
    path = (tmp_path / "root").resolve()
    path.mkdir()
    return path


@pytest.fixture
def workspace(root: Path) -> Workspace:
    return Workspace(root)


@pytest.fixture(autouse=True, scope="session")
def _no_real_gemini_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Settings, GEMINI.md and saved chats default to `$GEMINI_CLI_HOME/.gemini`: point it at a temp directory
    for the whole run (subprocesses inherit it), so no test reads or writes the developer's own files."""
    previous = os.environ.get("GEMINI_CLI_HOME")
    os.environ["GEMINI_CLI_HOME"] = str(tmp_path_factory.mktemp("gemini-home"))
    yield
    if previous is None:
        os.environ.pop("GEMINI_CLI_HOME", None)
    else:
        os.environ["GEMINI_CLI_HOME"] = previous
