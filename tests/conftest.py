"""Shared fixtures: a temporary workspace root per test."""

from __future__ import annotations

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
