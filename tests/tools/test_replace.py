"""The replace tool: success messages, every failure case, corrections, confirmation diff, file_changed, modify."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import EditConfirmation
from gemini_tui.core.ground.display import ErrorDisplay, FileDiff
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.tooling.tool import CallContext
from gemini_tui.tools.replace.tool import ReplaceParams, ReplaceTool
from gemini_tui.tools.workspace import Workspace


async def run(tool: ReplaceTool, context: CallContext | None = None, **raw: object) -> ToolResult:
    params = tool.validate_params(raw)
    if isinstance(params, ToolError):
        return ToolResult.failure(params.kind, params.message)
    return await tool.execute(params, AbortSignal(), context)


@pytest.fixture
def tool(workspace: Workspace) -> ReplaceTool:
    return ReplaceTool(workspace)


async def test_single_replacement(tool: ReplaceTool, root: Path) -> None:
    target = root / "a.py"
    target.write_text("def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    result = await run(tool, file_path=str(target), old_string="    return 1\n", new_string="    return 10\n")
    assert result.ok
    assert result.llm_content == f"Successfully modified file: {target} (1 replacements)."
    assert target.read_text() == "def f():\n    return 10\n\n\ndef g():\n    return 2\n"
    assert isinstance(result.return_display, FileDiff)
    assert result.return_display.lines_added == 1 and result.return_display.lines_removed == 1
    assert result.return_display.file_name == "a.py"


async def test_expected_replacements(tool: ReplaceTool, root: Path) -> None:
    target = root / "a.txt"
    target.write_text("x = 1\nx = 1\ny = 2\n")
    result = await run(tool, file_path=str(target), old_string="x = 1", new_string="x = 3")
    assert result.error and result.error.kind is ToolErrorKind.edit_occurrence_mismatch
    assert result.llm_content.startswith(
        f"Failed to edit, expected 1 occurrences but found 2 for old_string in file: {target}")
    assert target.read_text() == "x = 1\nx = 1\ny = 2\n"
    result = await run(tool, file_path=str(target), old_string="x = 1", new_string="x = 3", expected_replacements=2)
    assert result.llm_content == f"Successfully modified file: {target} (2 replacements)."
    assert target.read_text() == "x = 3\nx = 3\ny = 2\n"


async def test_create_on_empty_old_string(tool: ReplaceTool, root: Path) -> None:
    target = root / "new" / "dir" / "file.md"
    result = await run(tool, file_path=str(target), old_string="", new_string="# Title\n")
    assert result.llm_content == f"Created new file: {target} with provided content."
    assert target.read_text() == "# Title\n"
    assert isinstance(result.return_display, FileDiff) and result.return_display.is_new_file


@pytest.mark.parametrize(
    ("setup", "raw", "kind", "start"),
    [
        # a relative path is resolved under the root (issue 11), like the other tools do
        (None, {"file_path": "rel.txt", "old_string": "a", "new_string": "b"}, ToolErrorKind.file_not_found,
         "File not found: {root}/rel.txt"),
        (None, {"file_path": "/etc/hosts", "old_string": "a", "new_string": "b"}, ToolErrorKind.path_outside_root,
         "Path is outside the root directory"),
        (None, {"file_path": "{root}/missing.txt", "old_string": "a", "new_string": "b"},
         ToolErrorKind.file_not_found, "File not found: {root}/missing.txt. Use an empty old_string"),
        (b"exists\n", {"file_path": "{root}/f.txt", "old_string": "", "new_string": "b"}, ToolErrorKind.file_exists,
         "Failed to edit. Attempted to create a file that already exists: {root}/f.txt"),
        (b"abc\n", {"file_path": "{root}/f.txt", "old_string": "zzz", "new_string": "b"},
         ToolErrorKind.edit_no_occurrence, "Failed to edit, 0 occurrences found for old_string in {root}/f.txt."),
        (b"abc\n", {"file_path": "{root}/f.txt", "old_string": "abc", "new_string": "abc"},
         ToolErrorKind.edit_no_change, "No changes to apply. The old_string and new_string are identical"),
        (b"\x00\x01\x02binary", {"file_path": "{root}/f.txt", "old_string": "a", "new_string": "b"},
         ToolErrorKind.binary_file, "Cannot edit {root}/f.txt: it is not a text file."),
        (None, {"file_path": "{root}", "old_string": "a", "new_string": "b"}, ToolErrorKind.is_a_directory,
         "Path is a directory"),
        (None, {"file_path": "{root}/x", "old_string": "a", "new_string": "b", "expected_replacements": 0},
         ToolErrorKind.invalid_params, "Invalid parameters for replace"),
    ],
)
async def test_failures(tool: ReplaceTool, root: Path, setup: bytes | None, raw: dict[str, object],
                        kind: ToolErrorKind, start: str) -> None:
    if setup is not None:
        (root / "f.txt").write_bytes(setup)
    raw = {k: v.replace("{root}", str(root)) if isinstance(v, str) else v for k, v in raw.items()}
    result = await run(tool, **raw)
    assert result.error is not None and result.error.kind is kind, result.llm_content
    assert str(result.llm_content).startswith(start.replace("{root}", str(root)))
    assert isinstance(result.return_display, ErrorDisplay)
    if setup is not None:
        assert (root / "f.txt").read_bytes() == setup


async def test_not_found_names_closest_region(tool: ReplaceTool, root: Path) -> None:
    target = root / "m.py"
    target.write_text("import os\n\n\ndef main():\n    print('hello')\n    return 0\n")
    # two slipped characters in a line: more than an approximate match takes
    result = await run(tool, file_path=str(target), old_string="def main():\n    print('hallo!')\n",
                       new_string="def main():\n    print('bye')\n")
    assert result.error and result.error.kind is ToolErrorKind.edit_no_occurrence
    assert "The closest region is lines 4-5:\ndef main():\n    print('hello')" in result.llm_content


async def test_correction_is_named_in_llm_content(tool: ReplaceTool, root: Path) -> None:
    target = root / "c.py"
    target.write_text("class A:\n    def f(self):\n        return 1\n")
    result = await run(tool, file_path=str(target), old_string="def f(self):\n    return 1\n",
                       new_string="def f(self):\n    return 2\n")
    assert result.ok, result.llm_content
    assert "re-indented" in result.llm_content
    assert target.read_text() == "class A:\n    def f(self):\n        return 2\n"


async def test_keeps_crlf_bom_and_encoding(tool: ReplaceTool, root: Path) -> None:
    target = root / "w.txt"
    target.write_bytes(b"\xef\xbb\xbfline one\r\nline two\r\nline three\r\n")
    result = await run(tool, file_path=str(target), old_string="line one\nline two\n", new_string="line 1\nline 2\n")
    assert result.ok, result.llm_content
    assert target.read_bytes() == b"\xef\xbb\xbfline 1\r\nline 2\r\nline three\r\n"
    latin = root / "l.txt"
    latin.write_bytes("caf\xe9 = 1\n".encode("cp1252"))
    result = await run(tool, file_path=str(latin), old_string="café = 1", new_string="café = 2")
    assert result.ok and latin.read_bytes() == "caf\xe9 = 2\n".encode("cp1252")


async def test_mixed_line_endings(tool: ReplaceTool, root: Path) -> None:
    target = root / "mixed.txt"
    target.write_bytes(b"a\r\nb\r\nc\nd\n")
    result = await run(tool, file_path=str(target), old_string="a\nb\n", new_string="A\nB\nB2\n")
    assert result.ok, result.llm_content
    assert target.read_bytes() == b"A\r\nB\r\nB2\r\nc\nd\n"
    result = await run(tool, file_path=str(target), old_string="c\nd", new_string="C\nD")
    assert result.ok and target.read_bytes() == b"A\r\nB\r\nB2\r\nC\nD\n"


async def test_confirmation_diff_and_refresh(tool: ReplaceTool, root: Path) -> None:
    target = root / "d.txt"
    target.write_text("one\ntwo\nthree\n")
    params = tool.validate_params({"file_path": str(target), "old_string": "two", "new_string": "2"})
    assert isinstance(params, ReplaceParams)
    details = await tool.should_confirm_execute(params, AbortSignal())
    assert isinstance(details, EditConfirmation)
    assert details.file_diff.original_content == "one\ntwo\nthree\n"
    assert details.file_diff.new_content == "one\n2\nthree\n"
    assert "-two\n+2\n" in details.file_diff.diff
    assert target.read_text() == "one\ntwo\nthree\n"  # confirming writes nothing
    target.write_text("zero\none\ntwo\nthree\n")
    assert details.refresh is not None
    fresh = await details.refresh()
    assert fresh.new_content == "zero\none\n2\nthree\n"
    # the user approved the first diff; the file changed since: refuse
    result = await tool.execute(params, AbortSignal(), CallContext(reviewed_content=details.file_diff.original_content))
    assert result.error and result.error.kind is ToolErrorKind.file_changed
    assert target.read_text() == "zero\none\ntwo\nthree\n"
    result = await tool.execute(params, AbortSignal(), CallContext(reviewed_content=fresh.original_content))
    assert result.ok and target.read_text() == "zero\none\n2\nthree\n"


async def test_no_confirmation_when_the_edit_would_fail(tool: ReplaceTool, root: Path) -> None:
    params = tool.validate_params({"file_path": str(root / "nope.txt"), "old_string": "a", "new_string": "b"})
    assert isinstance(params, ReplaceParams)
    assert await tool.should_confirm_execute(params, AbortSignal()) is None


async def test_with_new_content_writes_exactly_that(tool: ReplaceTool, root: Path) -> None:
    target = root / "e.txt"
    target.write_bytes(b"alpha\r\nbeta\r\n")
    params = tool.validate_params({"file_path": str(target), "old_string": "beta", "new_string": "gamma"})
    assert isinstance(params, ReplaceParams)
    details = await tool.should_confirm_execute(params, AbortSignal())
    assert isinstance(details, EditConfirmation)
    user_text = "alpha\nbeta, edited by the user\n"
    modified = tool.with_new_content(params, user_text, details.file_diff.original_content)
    assert modified is not None
    reviewed = CallContext(reviewed_content=details.file_diff.original_content)
    result = await tool.execute(modified, AbortSignal(), reviewed)
    assert result.ok, result.llm_content
    assert target.read_bytes() == b"alpha\r\nbeta, edited by the user\r\n"
    new_file = root / "fresh.txt"
    create = tool.validate_params({"file_path": str(new_file), "old_string": "", "new_string": "x"})
    assert isinstance(create, ReplaceParams)
    modified = tool.with_new_content(create, "y\n", "")
    assert modified is not None
    assert (await tool.execute(modified, AbortSignal())).ok and new_file.read_text() == "y\n"


async def test_schema_and_description(tool: ReplaceTool, root: Path) -> None:
    declaration = tool.function_declaration()
    assert declaration["name"] == "replace"
    assert set(declaration["parameters"]["required"]) == {"file_path", "old_string", "new_string"}
    params = tool.validate_params({"file_path": str(root / "a.py"), "old_string": "x = 1\n", "new_string": "x = 2"})
    assert isinstance(params, ReplaceParams)
    assert tool.get_description(params) == "a.py: x = 1 => x = 2"


async def test_a_change_between_planning_and_writing_is_not_overwritten(tool: ReplaceTool, root: Path) -> None:
    from gemini_tui.tools.replace.tool import _write_unless_changed

    target = root / "race.txt"
    target.write_text("a\nb\n")
    params = tool.validate_params({"file_path": str(target), "old_string": "a", "new_string": "A"})
    assert isinstance(params, ReplaceParams)
    outcome = tool._plan(params)
    target.write_text("a\nb\nc\n")  # another writer, after the plan was computed
    assert not _write_unless_changed(outcome, root)
    assert target.read_text() == "a\nb\nc\n"
    fresh = tool._plan(params)
    assert _write_unless_changed(fresh, root) and target.read_text() == "A\nb\nc\n"


async def test_relative_file_path_is_under_the_root(tool: ReplaceTool, root: Path) -> None:
    (root / "sub").mkdir()
    (root / "sub/f.txt").write_text("alpha\n")
    result = await run(tool, file_path="sub/f.txt", old_string="alpha", new_string="beta")
    assert result.ok and (root / "sub/f.txt").read_text() == "beta\n"
    escape = await run(tool, file_path="../outside.txt", old_string="", new_string="x")
    assert escape.error is not None and escape.error.kind is ToolErrorKind.path_outside_root
