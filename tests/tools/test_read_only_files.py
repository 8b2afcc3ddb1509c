"""Read-only files: every writing tool refuses them with permission_denied and leaves them as they were."""

from __future__ import annotations

from pathlib import Path

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.tool_result import ToolErrorKind
from gemini_tui.tools.replace.tool import ReplaceTool
from gemini_tui.tools.workspace import Workspace


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
