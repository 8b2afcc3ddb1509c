"""Writes cannot be redirected: a thread swaps a directory inside the root with a link to a directory outside,
thousands of times, while write_file, replace and the write function itself write into it. Nothing may ever
land outside; every write either lands inside or is refused."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.tool_result import ToolErrorKind, ToolResult
from gemini_tui.tools.replace import ReplaceTool
from gemini_tui.tools.workspace import Workspace
from gemini_tui.tools.workspace.confined import OutsideRootError, read_bytes_confined
from gemini_tui.tools.workspace.text_file import write_bytes_atomic
from gemini_tui.tools.write_file import WriteFileTool

RENAME_EXCHANGE = 2
_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def exchange(a: Path, b: Path) -> None:
    """renameat2(RENAME_EXCHANGE): the two names swap in one step, so `race` is always a directory or a link."""
    if _libc.renameat2(-100, os.fsencode(a), -100, os.fsencode(b), RENAME_EXCHANGE) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


class Swapper(threading.Thread):
    def __init__(self, root: Path, outside: Path) -> None:
        super().__init__(daemon=True)
        self.real, self.link = root / "race", root / "race.link"
        self.real.mkdir()
        self.link.symlink_to(outside, target_is_directory=True)
        self.stop = threading.Event()
        self.swaps = 0

    def run(self) -> None:
        while not self.stop.is_set():
            exchange(self.real, self.link)
            self.swaps += 1


@pytest.fixture
def swapper(tmp_path: Path) -> Any:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    try:
        exchange(root, outside)  # a no-op pair of swaps: checks renameat2 works here
        exchange(root, outside)
    except (OSError, AttributeError) as exc:
        pytest.skip(f"renameat2 is not available: {exc}")
    thread = Swapper(root, outside)
    thread.start()
    yield root, outside, thread
    thread.stop.set()
    thread.join()


def everything_under(directory: Path) -> list[Path]:
    return [Path(base) / name for base, dirs, files in os.walk(directory) for name in dirs + files]


async def test_write_file_never_lands_outside(swapper: Any) -> None:
    root, outside, thread = swapper
    tool = WriteFileTool(Workspace(root))
    outcomes: dict[str, int] = {}
    for index in range(600):
        params = tool.validate_params({"file_path": f"race/r{index}.txt", "content": f"{index}\n"})
        if not isinstance(params, tool.Params):  # refused at validation: `race` was the link just then
            outcomes["refused early"] = outcomes.get("refused early", 0) + 1
            continue
        result: ToolResult = await tool.execute(params, AbortSignal())
        kind = "written" if result.ok else result.error.kind.value  # type: ignore[union-attr]
        outcomes[kind] = outcomes.get(kind, 0) + 1
        if not result.ok:
            assert result.error is not None and result.error.kind is ToolErrorKind.path_outside_root, result
    assert everything_under(outside) == [], outcomes
    assert thread.swaps > 1000, thread.swaps
    # the race was really run: some writes landed, some met the link and were refused
    assert outcomes.get("written", 0) > 0 and outcomes.get("path_outside_root", 0) + outcomes.get(
        "refused early", 0) > 0, outcomes


async def test_replace_never_lands_outside(swapper: Any) -> None:
    root, outside, thread = swapper
    tool = ReplaceTool(Workspace(root))
    for index in range(300):
        params = tool.validate_params({"file_path": str(root / "race" / f"n{index}.txt"), "old_string": "",
                                       "new_string": "created\n"})
        if isinstance(params, tool.Params):
            await tool.execute(params, AbortSignal())
    assert everything_under(outside) == []
    assert thread.swaps > 500


def test_the_write_function_never_lands_outside_and_reads_refuse_links(swapper: Any) -> None:
    root, outside, thread = swapper
    written = refused = 0
    for index in range(3000):
        target = root / "race" / "deeper" / f"w{index}.txt"
        try:
            write_bytes_atomic(target, b"x", root=root)
            written += 1
        except OutsideRootError:
            refused += 1
        except FileNotFoundError:
            refused += 1  # the realpath was taken outside, then the walk found the directory: still inside
    assert everything_under(outside) == []
    assert written and refused and thread.swaps > 3000
    (outside / "secret.txt").write_text("secret")
    for _ in range(2000):
        try:
            assert read_bytes_confined(root / "race" / "secret.txt", root) != b"secret"
        except (OutsideRootError, FileNotFoundError):
            pass
