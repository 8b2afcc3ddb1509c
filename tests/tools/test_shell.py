"""run_shell_command against real bash: streaming, exit codes, timeouts and cancel ending the whole group,
the output cap, closed stdin, and confirmation by session roots."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import ExecConfirmation
from gemini_tui.core.ground.display import ShellOutput
from gemini_tui.core.ground.tool_result import ToolErrorKind, ToolResult
from gemini_tui.core.tooling.tool import CallContext
from gemini_tui.tools.shell.process_group import group_members
from gemini_tui.tools.shell.tool import ShellParams, ShellTool
from gemini_tui.tools.workspace import Workspace


@pytest.fixture
def shell(workspace: Workspace, tmp_path: Path) -> ShellTool:
    return ShellTool(workspace, output_dir=tmp_path / "saved")


async def run(tool: ShellTool, command: str, **kw: object) -> tuple[ToolResult, list[str]]:
    params = tool.validate_params({"command": command, **kw})
    assert isinstance(params, ShellParams), params
    chunks: list[str] = []
    result = await tool.execute(params, AbortSignal(), CallContext(on_output=chunks.append))
    return result, chunks


def pgid_of(llm: str) -> int:
    match = re.search(r"Process Group PGID: (\d+)", llm)
    assert match
    return int(match.group(1))


async def test_output_exit_code_and_llm_shape(shell: ShellTool) -> None:
    result, chunks = await run(shell, "echo hello; echo oops >&2; exit 3")
    assert result.ok
    assert isinstance(result.llm_content, str)
    lines = result.llm_content.splitlines()
    assert lines[0] == "Command: echo hello; echo oops >&2; exit 3"
    assert lines[1] == "Directory: (root)"
    assert lines[2] == "Output: hello"
    assert lines[3] == "oops"
    assert "Exit Code: 3" in lines
    assert "Signal: (none)" in lines
    assert "Background PIDs: (none)" in lines
    assert "".join(chunks) == "hello\noops\n"
    assert isinstance(result.return_display, ShellOutput)
    assert result.return_display.exit_code == 3


async def test_environment_and_directory(shell: ShellTool, root: Path) -> None:
    (root / "sub").mkdir()
    result, _ = await run(shell, 'echo "$GEMINI_CLI $PAGER $(pwd)"', directory="sub")
    assert f"Output: 1 cat {root / 'sub'}" in result.llm_content
    assert "Directory: sub" in result.llm_content


@pytest.mark.parametrize("directory", ["../", "/etc", "missing"])
def test_directory_outside_root_or_missing_is_refused(shell: ShellTool, directory: str) -> None:
    error = shell.validate_params({"command": "ls", "directory": directory})
    assert not isinstance(error, ShellParams)
    assert error.kind in (ToolErrorKind.path_outside_root, ToolErrorKind.file_not_found)


async def test_streams_while_running(shell: ShellTool) -> None:
    params = shell.validate_params({"command": "echo first; sleep 1.5; echo second"})
    seen: list[tuple[float, str]] = []
    loop = asyncio.get_running_loop()
    await shell.execute(params, AbortSignal(), CallContext(on_output=lambda c: seen.append((loop.time(), c))))
    ended = loop.time()
    assert seen[0][1].startswith("first")
    assert ended - seen[0][0] >= 1.2  # it arrived while the command was still sleeping
    assert "second" in "".join(c for _, c in seen)


async def test_signal_reported(shell: ShellTool) -> None:
    result, _ = await run(shell, "kill -TERM $$")
    assert "Exit Code: (none)" in result.llm_content
    assert "Signal: 15 (SIGTERM)" in result.llm_content


async def test_stdin_is_closed(shell: ShellTool) -> None:
    loop = asyncio.get_running_loop()
    start = loop.time()
    result, _ = await run(shell, "cat; read x; echo done:$?")
    assert loop.time() - start < 5
    assert "done:1" in result.llm_content


async def test_inactivity_timeout_ends_the_whole_group(workspace: Workspace) -> None:
    tool = ShellTool(workspace, inactivity_timeout_s=0.5)
    result, _ = await run(tool, "echo start; (sleep 30 &); sleep 30 & sleep 30")
    assert result.error is not None and result.error.kind is ToolErrorKind.timeout
    assert "start" in result.llm_content
    pgid = pgid_of(result.llm_content)
    assert group_members(pgid) == []
    assert isinstance(result.return_display, ShellOutput) and result.return_display.timed_out


async def test_output_resets_inactivity_but_total_timeout_ends(workspace: Workspace) -> None:
    tool = ShellTool(workspace, inactivity_timeout_s=1.0, total_timeout_s=2.0)
    loop = asyncio.get_running_loop()
    start = loop.time()
    result, _ = await run(tool, "while true; do echo tick; sleep 0.1; done")
    assert 1.9 < loop.time() - start < 6
    assert result.error is not None and result.error.kind is ToolErrorKind.timeout
    assert "ran longer than 2 s" in result.llm_content
    assert group_members(pgid_of(result.llm_content)) == []


async def test_sigterm_ignoring_group_is_killed(workspace: Workspace) -> None:
    tool = ShellTool(workspace, total_timeout_s=0.3)
    result, _ = await run(tool, "trap '' TERM; echo armed; while true; do sleep 0.1; done")
    assert "armed" in result.llm_content
    assert group_members(pgid_of(result.llm_content)) == []


async def test_cancel_returns_output_so_far(shell: ShellTool) -> None:
    params = shell.validate_params({"command": "echo before; sleep 30; echo after"})
    signal = AbortSignal()
    chunks: list[str] = []

    def on_output(chunk: str) -> None:
        chunks.append(chunk)
        signal.abort()

    result = await asyncio.wait_for(shell.execute(params, signal, CallContext(on_output=on_output)), 10)
    assert result.error is not None and result.error.kind is ToolErrorKind.cancelled
    assert "Output: before\nError" in result.llm_content
    assert group_members(pgid_of(result.llm_content)) == []


async def test_huge_output_is_capped_and_saved_outside_root(workspace: Workspace, root: Path) -> None:
    tool = ShellTool(workspace, output_limit=10_000)
    result, chunks = await run(tool, "seq 1 200000")
    assert isinstance(result.return_display, ShellOutput)
    saved = Path(result.return_display.saved_to or "")
    assert saved.is_file() and root not in saved.parents
    full = saved.read_text()
    assert full.splitlines() == [str(i) for i in range(1, 200001)]
    assert len(result.llm_content) < 12_000
    assert result.llm_content.splitlines()[2] == "Output: 1"
    assert "200000" in result.llm_content.splitlines()[-9] or "200000" in result.llm_content
    assert "characters truncated" in result.llm_content
    assert "".join(chunks) == full
    saved.unlink()
    saved.parent.rmdir()


async def test_background_pids_reported(shell: ShellTool) -> None:
    result, _ = await run(shell, "sleep 5 & echo started")
    match = re.search(r"Background PIDs: ([\d, ]+)", result.llm_content)
    assert match, result.llm_content
    pids = [int(p) for p in match.group(1).split(",")]
    for pid in pids:
        os.kill(pid, 9)


async def test_ansi_kept_for_display_stripped_for_model(shell: ShellTool) -> None:
    result, chunks = await run(shell, r"printf '\033[31mred\033[0m\n'")
    assert "\x1b[31m" in "".join(chunks)
    assert "Output: red" in result.llm_content and "\x1b" not in result.llm_content


async def test_confirmation_shows_the_real_commands_and_what_is_opaque(workspace: Workspace) -> None:
    tool = ShellTool(workspace)
    params = tool.validate_params({"command": "for f in a b; do git status && ls -la $f; done"})
    details = await tool.should_confirm_execute(params, AbortSignal())
    assert isinstance(details, ExecConfirmation)
    assert details.root_commands == ("git status", "ls")  # never the keywords for, do, done
    assert not details.hidden_commands and details.opaque == ()
    hidden = await tool.should_confirm_execute(tool.validate_params({"command": "eval \"$X\""}), AbortSignal())
    assert isinstance(hidden, ExecConfirmation) and hidden.hidden_commands and hidden.opaque == ("eval",)


def test_the_tool_describes_its_call_and_never_decides(workspace: Workspace) -> None:
    # the policy is the one decider: the tool validates and describes, a denied command is not its business
    tool = ShellTool(workspace)
    params = tool.validate_params({"command": "ls && rm -rf x", "directory": "."})
    assert isinstance(params, ShellParams)
    needs = tool.needs(params)
    assert needs.shell is not None and [c.words for c in needs.shell.commands] == [("ls",), ("rm", "-rf", "x")]
    assert needs.cwd == str(workspace.root)
    assert not hasattr(tool, "allowed_roots") and not hasattr(tool, "rules")


async def test_progress_redraws_collapse_for_the_model(shell: ShellTool) -> None:
    result, chunks = await run(shell, r"printf 'get 10%%\rget 50%%\rget 100%%\ndone\r\n'")
    assert "\r" in "".join(chunks)
    assert "Output: get 100%\ndone\nError" in result.llm_content


async def test_binary_output_is_counted_not_shown(shell: ShellTool) -> None:
    result, chunks = await run(shell, "head -c 100000 /dev/zero; echo")
    assert "".join(chunks) == "[Binary output detected; not shown]\n"
    assert "[100001 bytes of binary output were not shown]" in result.llm_content
