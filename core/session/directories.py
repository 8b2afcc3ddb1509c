"""`/directory add`: the workspace widened by a directory, for every tool, `@path`, GEMINI.md imports, the
sandbox's writable places and the MCP servers' roots."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Protocol

from gemini_tui.core.processes.sandbox import Sandbox


class DirectoryGate(Protocol):
    """What the session needs of the tools' workspace gate: adding a directory to it (`/directory add`)."""

    def add_directory(self, directory: str) -> Path: ...


class Directories:
    """The workspace's directories beside `root` (`include_dirs`, shared with the session's context memory);
    `gate` is the tools' workspace (None: nothing to widen); `mcp` is told of a new root when it can be."""

    def __init__(self, root: Path, include_dirs: list[Path], gate: DirectoryGate | None, sandbox: Sandbox,
                 mcp: object) -> None:
        self.root = root
        self.include_dirs = include_dirs
        self.gate = gate
        self.sandbox = sandbox
        self.mcp = mcp
        self._telling: set[asyncio.Task[None]] = set()  # servers being told of a new root

    def add(self, directory: str) -> Path:
        """`directory` becomes part of the workspace; raises ValueError when it is not a directory."""
        if self.gate is None:
            raise ValueError("this session has no workspace to widen")
        try:
            added = Path(self.gate.add_directory(directory))
        except Exception as exc:  # the gate's WorkspaceError: core does not import tools
            raise ValueError(str(exc)) from exc
        if added not in self.include_dirs and added != self.root:
            self.include_dirs.append(added)
            self.sandbox.add_writable([added])  # commands in the sandbox may write there too, like in the root
            if (roots_changed := getattr(self.mcp, "roots_changed", None)) is not None:  # servers see the new root
                with contextlib.suppress(RuntimeError):  # no running loop: they ask for roots when they need them
                    task = asyncio.get_running_loop().create_task(roots_changed())
                    self._telling.add(task)
                    task.add_done_callback(self._telling.discard)
        return added
