"""Searches stay inside and end: a root holding links to `/`, to itself and in a loop answers within its time
limit with only the files inside, from every engine; a search stopped by its clock says so; and no child
process (ripgrep, find, git, a command's background job) outlives its call or gemini-tui."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from pathlib import Path

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.tool_result import ToolErrorKind, ToolResult
from gemini_tui.core.processes import child_processes
from gemini_tui.tools.search_file_content import SearchFileContentTool
from gemini_tui.tools.shell.tool import ShellParams, ShellTool
from gemini_tui.tools.workspace import Workspace
from tests.fakes import warm_start


def processes_in(directory: Path) -> list[str]:
    """Live processes whose working directory is `directory` or below: what a tool started there and left."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if stat[stat.rfind(")") + 2] in "ZX":
            continue
        if cwd == str(directory) or cwd.startswith(f"{directory}/"):
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            found.append(f"{entry.name}: {command}")
    return found


@pytest.fixture
def linked_root(root: Path) -> Path:
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("needle = 1\n")
    (root / "b.txt").write_text("a needle here\nnone\n")
    (root / "to_root").symlink_to("/")
    (root / "to_home").symlink_to(Path.home())
    (root / "self").symlink_to(".")
    (root / "src" / "up").symlink_to("..")
    (root / "loop").symlink_to("loop")
    (root / "link_to_a.py").symlink_to(root / "src" / "a.py")  # a file link inside: searched, once
    return root


async def search(tool: SearchFileContentTool, pattern: str, signal: AbortSignal | None = None) -> ToolResult:
    params = tool.validate_params({"pattern": pattern})
    return await tool.execute(params, signal or AbortSignal())  # type: ignore[arg-type]


@pytest.mark.parametrize("engine", ["rg", "git", "python"])
async def test_links_to_root_and_to_itself_are_not_followed(engine: str, linked_root: Path) -> None:
    if engine == "git":
        subprocess.run(["git", "init", "-q"], cwd=linked_root, check=True)
    tool = SearchFileContentTool(Workspace(linked_root), engine=engine, time_limit_s=20)  # type: ignore[arg-type]
    started = time.monotonic()
    result = await search(tool, "needle")
    assert time.monotonic() - started < 15
    assert isinstance(result.llm_content, str) and result.error is None, result.llm_content
    files = sorted(line[6:] for line in result.llm_content.splitlines() if line.startswith("File: "))
    assert files == ["b.txt", "link_to_a.py", "src/a.py"], result.llm_content
    assert "stopped at its time limit" not in result.llm_content
    assert processes_in(linked_root) == []


async def test_a_search_stopped_by_its_clock_says_so_and_keeps_what_it_found(root: Path) -> None:
    for index in range(400):
        (root / f"f{index:03}.txt").write_text("needle\n" * 50)
    quick = SearchFileContentTool(Workspace(root), engine="python", time_limit_s=0.001)
    result = await search(quick, "needle")
    assert result.error is None and isinstance(result.llm_content, str)
    assert "stopped at its time limit (0.001 s)" in result.llm_content
    full = await search(SearchFileContentTool(Workspace(root), engine="python"), "needle")
    assert "stopped at its time limit" not in str(full.llm_content)
    assert str(full.llm_content).count("File: ") >= str(result.llm_content).count("File: ")
    for engine in ("rg", "python"):
        stopped = await search(SearchFileContentTool(Workspace(root), engine=engine, time_limit_s=0.001),  # type: ignore[arg-type]
                               "needle")
        assert "time limit" in str(stopped.llm_content)
        assert processes_in(root) == []


async def test_cancelled_search_leaves_no_process(root: Path) -> None:
    for index in range(50):
        (root / f"d{index}").mkdir()
        for inner in range(40):
            (root / f"d{index}" / f"{inner}.txt").write_text("x\n" * 200)
    signal = AbortSignal()
    task = asyncio.ensure_future(search(SearchFileContentTool(Workspace(root), engine="rg"), "(a|b)*c+x", signal))
    await asyncio.sleep(0.01)
    signal.abort()
    result = await task
    assert result.error is None or result.error.kind is ToolErrorKind.cancelled
    assert processes_in(root) == []


async def test_commands_end_with_their_call_and_background_jobs_with_gemini_tui(root: Path) -> None:
    tool = ShellTool(Workspace(root))
    params = tool.validate_params({"command": "sleep 1000 & echo started"})
    assert isinstance(params, ShellParams)
    result = await tool.execute(params, AbortSignal())
    assert "started" in str(result.llm_content)
    assert len(processes_in(root)) == 1  # the background job runs on, as the tool promises the model
    child_processes.end_all()  # what gemini-tui does when it exits
    for _ in range(50):
        if not processes_in(root):
            break
        await asyncio.sleep(0.05)
    assert processes_in(root) == []


def test_gemini_tui_exiting_ends_a_running_command_and_its_background_jobs(root: Path, home: Path) -> None:
    """Headless: the offline model runs a command that leaves a job behind; when gemini-tui exits, it is gone."""
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "GEMINI_CLI_HOME": str(home), "LANG": "C.UTF-8"}
    out = subprocess.run([*warm_start.command(env), "-m", "offline", "--yolo", "-p",
                          "run sleep 1000 & sleep 1001 & echo started"], cwd=root, env=env, capture_output=True,
                         text=True, timeout=60)
    assert "started" in out.stdout + out.stderr
    for _ in range(50):
        if not processes_in(root):
            break
        time.sleep(0.05)
    assert processes_in(root) == []


async def test_glob_stops_at_its_time_limit_with_a_notice(linked_root: Path) -> None:
    from gemini_tui.tools.glob import GlobTool

    for index in range(300):
        (linked_root / f"g{index}.py").write_text("")
    quick = GlobTool(Workspace(linked_root), time_limit_s=0.0001)
    result = await quick.execute(quick.validate_params({"pattern": "**/*.py"}), AbortSignal())  # type: ignore[arg-type]
    assert "stopped at its time limit" in str(result.llm_content)
    full = GlobTool(Workspace(linked_root))
    result = await full.execute(full.validate_params({"pattern": "**/*.py"}), AbortSignal())  # type: ignore[arg-type]
    text = str(result.llm_content)
    assert "stopped at its time limit" not in text and "Found 302 file(s)" in text  # links to /, the root: not entered
