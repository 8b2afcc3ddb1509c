"""Every way a file can change between the review of an edit and its writing, for both writing tools: during the
review, a re-read names what happened (`EditUnavailable`: deleted, now a directory, a link out, read-only, the
edit's text gone, ...); after approval, the failure the model gets names it too. Never "unreadable" for a file
that is merely different, and nothing is written."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import EditConfirmation, EditUnavailable
from gemini_tui.core.ground.display import FileDiff
from gemini_tui.core.tooling.tool import CallContext
from gemini_tui.tools.replace.tool import ReplaceTool
from gemini_tui.tools.workspace import Workspace
from gemini_tui.tools.write_file import WriteFileTool

START = "alpha = 1\nbeta = 2\n"


def _replace(path: Path, text: str) -> None:
    if path.is_dir() and not path.is_symlink():
        path.rmdir()
    elif os.path.lexists(path):
        path.unlink()
    path.write_text(text)


def _symlink_out(path: Path) -> None:
    outside = path.parent.parent / "outside.txt"
    outside.write_text(START)
    path.unlink()
    path.symlink_to(outside)


# event -> what it does to the reviewed file (or, for a new file, to where it would be)
EVENTS: dict[str, Callable[[Path], None]] = {
    "text_gone": lambda p: _replace(p, "omega = 1\nbeta = 2\n"),
    "text_twice": lambda p: _replace(p, START + "alpha = 1\n"),
    "elsewhere": lambda p: _replace(p, START + "gamma = 3\n"),
    "deleted": lambda p: p.unlink(),
    "directory": lambda p: (p.unlink(), p.mkdir()),
    "link_out": _symlink_out,
    "fifo": lambda p: (p.unlink(), os.mkfifo(p)),
    "read_only": lambda p: p.chmod(0o444),
    "binary": lambda p: p.write_bytes(b"alpha = 1\x00\x01\x02\n"),
    "encoding": lambda p: p.write_bytes(START.encode("utf-16")),  # the same text in another encoding
    "created": lambda p: p.write_text("made by someone else\n"),  # (a new file's review)
}

# (tool, event) -> what a re-read during the review finds: an EditUnavailable kind and words of its reason, or
# "diff" (a new diff to review: the text changed and the edit still applies), or "same" (nothing to say)
DURING: dict[tuple[str, str], tuple[str, str]] = {
    ("replace", "text_gone"): ("changed", "changed on disk and the edit no longer applies"),
    ("replace", "text_twice"): ("changed", "different number of times"),
    ("replace", "elsewhere"): ("diff", ""),
    ("replace", "deleted"): ("deleted", "was deleted"),
    ("replace", "directory"): ("directory", "is now a directory"),
    ("replace", "link_out"): ("link", "symbolic link leading out of"),
    ("replace", "fifo"): ("special", "no longer a regular file"),
    ("replace", "read_only"): ("read_only", "became read-only"),
    ("replace", "binary"): ("not_text", "no longer a text file"),
    ("replace", "encoding"): ("same", ""),
    ("replace", "created"): ("created", "was created on disk meanwhile"),
    ("write_file", "text_gone"): ("diff", ""),
    ("write_file", "text_twice"): ("diff", ""),
    ("write_file", "elsewhere"): ("diff", ""),
    ("write_file", "deleted"): ("diff", ""),  # a new-file diff: the review says the file was deleted
    ("write_file", "directory"): ("directory", "is now a directory"),
    ("write_file", "link_out"): ("link", "symbolic link leading out of"),
    ("write_file", "fifo"): ("special", "no longer a regular file"),
    ("write_file", "read_only"): ("read_only", "became read-only"),
    ("write_file", "binary"): ("diff", ""),
    ("write_file", "encoding"): ("same", ""),
    ("write_file", "created"): ("diff", ""),
}

# event -> words of the failure after approval (None: the edit is still written, correctly)
AFTER: dict[str, str | None] = {
    "text_gone": "changed on disk", "text_twice": "changed on disk", "elsewhere": "changed on disk",
    "deleted": "was deleted", "directory": "is now a directory", "link_out": "symbolic link leading out of",
    "fifo": "no longer a regular file", "read_only": "became read-only", "binary": "changed on disk",
    "encoding": None, "created": "was created on disk meanwhile",
}


async def review(tool_name: str, workspace: Workspace, path: Path, new_file: bool) -> tuple[object, object,
                                                                                             EditConfirmation]:
    if tool_name == "replace":
        tool: ReplaceTool | WriteFileTool = ReplaceTool(workspace)
        args = {"file_path": str(path), "old_string": "" if new_file else "alpha = 1",
                "new_string": START if new_file else "alpha = 10"}
    else:
        tool = WriteFileTool(workspace)
        args = {"file_path": str(path), "content": "alpha = 10\nbeta = 2\n"}
    params = tool.validate_params(args)
    assert isinstance(params, tool.Params)
    details = await tool.should_confirm_execute(params, AbortSignal())  # type: ignore[arg-type]
    assert isinstance(details, EditConfirmation) and details.refresh is not None
    return tool, params, details


async def under_review(root: Path, tool_name: str, event: str) -> tuple[Path, object, object, EditConfirmation]:
    """The file of `event` as it was when the review opened (absent for "created"), and the tool's review of it."""
    path = root / "settings.py"
    new_file = event == "created"
    if not new_file:
        path.write_text(START)
    tool, params, details = await review(tool_name, Workspace(root), path, new_file)
    return path, tool, params, details


CASES = sorted(DURING)


@pytest.mark.parametrize(("tool_name", "event"), CASES, ids=[f"{t}-{e}" for t, e in CASES])
async def test_a_re_read_during_the_review_names_what_happened(root: Path, tool_name: str, event: str) -> None:
    path, _, _, details = await under_review(root, tool_name, event)
    EVENTS[event](path)
    expected, words = DURING[(tool_name, event)]
    assert details.refresh is not None
    try:
        latest: FileDiff | EditUnavailable = await details.refresh()
    except EditUnavailable as exc:
        latest = exc
    if expected in ("diff", "same"):
        assert isinstance(latest, FileDiff), latest
        same = latest.original_content == details.file_diff.original_content
        assert same == (expected == "same")
    else:
        assert isinstance(latest, EditUnavailable), latest
        assert latest.kind == expected and words in latest.reason, (latest.kind, latest.reason)
        assert "unreadable" not in latest.reason


@pytest.mark.parametrize(("tool_name", "event"), CASES, ids=[f"{t}-{e}" for t, e in CASES])
async def test_an_approved_edit_that_cannot_be_written_names_what_happened(root: Path, tool_name: str,
                                                                          event: str) -> None:
    path, tool, params, details = await under_review(root, tool_name, event)
    EVENTS[event](path)  # after the user approved it, before it is written
    before = _snapshot(path)
    context = CallContext(reviewed_content=details.file_diff.original_content,
                          reviewed_existed=not details.file_diff.is_new_file)
    result = await tool.execute(params, AbortSignal(), context)  # type: ignore[attr-defined]
    words = AFTER[event]
    if words is None:  # the same text: written, in the file's own encoding
        assert result.ok, result.llm_content
        assert path.read_bytes().decode("utf-16").startswith("alpha = 10\n")
        return
    assert not result.ok and words in str(result.llm_content), result.llm_content
    assert "unreadable" not in str(result.llm_content)
    assert _snapshot(path) == before  # nothing written


def _snapshot(path: Path) -> tuple[str, bytes | None]:
    if path.is_symlink():
        return "link", os.readlink(path).encode()
    if path.is_dir():
        return "dir", None
    if not path.exists():
        return "none", None
    if not path.is_file():
        return "special", None
    return "file", path.read_bytes()
