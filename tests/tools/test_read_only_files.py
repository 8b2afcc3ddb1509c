"""Read-only files: every writing tool refuses them with permission_denied and leaves them as they were, and
knows it before the user is asked to review the change (generated cases as root, as another user, and on a
read-only mount)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.tool_result import ToolErrorKind
from gemini_tui.core.processes.sandbox import find_bwrap
from gemini_tui.tools.replace.tool import ReplaceTool
from gemini_tui.tools.workspace import Workspace
from tests.tools import read_only_cases
from tests.tools.read_only_cases import NOBODY

REPO = Path(__file__).resolve().parents[2]


async def test_replace_refuses_a_read_only_file(workspace: Workspace, root: Path) -> None:
    target = root / "locked.py"
    target.write_bytes(b"x = 1\n")
    target.chmod(0o444)
    tool = ReplaceTool(workspace)
    params = tool.validate_params({"file_path": str(target), "old_string": "x = 1", "new_string": "x = 2"})
    assert isinstance(params, tool.Params)
    result = await tool.execute(params, AbortSignal())
    assert result.error is not None and result.error.kind is ToolErrorKind.permission_denied
    assert "read-only" in result.error.message and str(target) in result.error.message
    assert target.read_bytes() == b"x = 1\n"


# --- known before review: generated cases, as root and as another user, and on a read-only mount -------------


@pytest.fixture
def shared_base() -> Iterator[Path]:
    """A folder every user can pass through (pytest's own temporary folder is root's alone)."""
    base = Path(tempfile.mkdtemp(prefix="gemini-tui-ro-"))
    base.chmod(0o755)
    try:
        yield base
    finally:
        for path in base.rglob("*"):  # the cases' folders may be read-only
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(base)


def as_another_user(base: Path) -> dict[str, dict[str, object]]:
    """`read_only_cases.check` in a forked child that became `nobody` (as root; otherwise as this user): forked
    rather than started, since the interpreter may live where that user cannot read (root's home)."""
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        code = 1
        try:
            os.close(reader)
            if os.geteuid() == 0:
                os.setgroups([])
                os.setresgid(NOBODY, NOBODY, NOBODY)
                os.setresuid(NOBODY, NOBODY, NOBODY)
            try:
                answer = json.dumps(read_only_cases.check(base))
            except BaseException:
                answer = json.dumps({"error": traceback.format_exc()})
            with os.fdopen(writer, "w") as out:
                out.write(answer)
            code = 0
        finally:
            os._exit(code)
    os.close(writer)
    with os.fdopen(reader) as answer:
        text = answer.read()
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0 and text
    answers = json.loads(text)
    assert "error" not in answers, answers["error"]
    return answers


def assert_known_before_review(base: Path, results: dict[str, dict[str, object]]) -> None:
    """Each tool refuses before the review exactly when the write could not happen (or the file is locked),
    with permission_denied saying read-only; nothing is written either way."""
    assert results and not read_only_cases.unchanged(base, results)
    for name, result in results.items():
        expected = not result["truth"] or result["locked"]
        for tool in ("replace", "write_file"):
            answer = result[tool]
            assert isinstance(answer, dict)
            assert answer["refused"] == expected, (name, tool, result)
            if expected:
                assert answer["kind"] == "permission_denied", (name, tool, answer)
                assert "read-only" in str(answer["message"]) and "not asked" in str(answer["message"]), answer


def test_read_only_is_known_before_review_as_root_and_as_another_user(shared_base: Path) -> None:
    for case in read_only_cases.cases():
        read_only_cases.set_up(shared_base, case)
    as_root = read_only_cases.check(shared_base)
    assert_known_before_review(shared_base, as_root)
    assert os.geteuid() != 0 or {name for name, r in as_root.items() if r["replace"]["refused"]} == {  # type: ignore[index]
        name for name, r in as_root.items() if r["locked"]}  # root: only a file nobody may write is read-only
    # as another user: the bits, the owner and the folder count (the same cases, that user's own answers)
    as_user = as_another_user(shared_base)
    assert {r["euid"] for r in as_user.values()} == {NOBODY if os.geteuid() == 0 else os.geteuid()}
    assert_known_before_review(shared_base, as_user)
    refused = {name for name, r in as_user.items() if r["replace"]["refused"]}
    assert "file-644-owner-0" in refused and "new-in-755" in refused and "file-666-in-555" in refused
    assert "file-644-owner-65534" not in refused and "new-in-777" not in refused


def test_a_read_only_mount_is_known_before_review(shared_base: Path) -> None:
    for case in read_only_cases.cases():
        if case.folder_mode == 0o777 or case.file_mode is None:
            read_only_cases.set_up(shared_base, case)
    bwrap = find_bwrap()
    assert bwrap is not None, "bwrap is installed by make test (debs-sandbox)"
    run = subprocess.run([bwrap, "--dev-bind", "/", "/", "--ro-bind", str(shared_base), str(shared_base),
                          sys.executable, "-m", "tests.tools.read_only_cases", str(shared_base)], cwd=REPO,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    results = json.loads(run.stdout)
    assert_known_before_review(shared_base, results)
    for name, result in results.items():  # nothing on a read-only mount can be written, by anyone
        assert result["replace"]["refused"] and "read-only file system" in result["replace"]["message"], name
