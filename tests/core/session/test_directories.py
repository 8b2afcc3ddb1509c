"""Directories alone: `/directory add` widens the tools' real workspace gate, the sandbox's writable places and
the MCP servers' roots, once per directory; what cannot be added is a ValueError and changes nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gemini_tui.core.processes.sandbox import Sandbox
from gemini_tui.core.session.directories import Directories
from gemini_tui.tools.workspace import Workspace


class Servers:
    """Counts the roots/list_changed notifications the session sends (what McpManager.roots_changed does)."""

    def __init__(self) -> None:
        self.told = 0

    async def roots_changed(self) -> None:
        self.told += 1


def directories(root: Path, servers: object = None) -> Directories:
    return Directories(root, [], Workspace(root), Sandbox(writable=[root]), servers)


async def test_a_new_directory_is_added_everywhere_once(root: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    servers = Servers()
    dirs = directories(root, servers)
    assert dirs.add(str(other)) == other.resolve()
    assert dirs.add(str(other)) == other.resolve()  # a second time changes nothing more
    await asyncio.sleep(0)  # the servers are told in the background
    assert dirs.include_dirs == [other.resolve()]
    assert dirs.sandbox.writable == [root, other.resolve()]
    assert servers.told == 1


@pytest.mark.parametrize("name", ["missing", "a-file"])
def test_what_is_not_a_directory_is_refused_and_changes_nothing(root: Path, tmp_path: Path, name: str) -> None:
    (tmp_path / "a-file").write_text("x")
    dirs = directories(root)
    with pytest.raises(ValueError):
        dirs.add(str(tmp_path / name))
    assert dirs.include_dirs == [] and dirs.sandbox.writable == [root]


def test_the_root_itself_is_not_listed_again(root: Path) -> None:
    dirs = directories(root)
    dirs.add(str(root))
    assert dirs.include_dirs == []


def test_without_a_workspace_gate_nothing_can_be_added(root: Path, tmp_path: Path) -> None:
    dirs = Directories(root, [], None, Sandbox(), None)
    with pytest.raises(ValueError, match="no workspace"):
        dirs.add(str(tmp_path))
