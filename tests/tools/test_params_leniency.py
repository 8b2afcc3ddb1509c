"""Every built-in tool: unknown extra parameters are ignored (the result says which), Gemini CLI's own names are
accepted, and a known parameter of the wrong type is still refused."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.cli.assemble import build_registry
from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.tool_result import ToolError
from gemini_tui.core.setup.config import Settings
from gemini_tui.core.tooling.tool import BaseTool
from gemini_tui.tools.workspace import Workspace

VALID: dict[str, dict[str, Any]] = {
    "read_file": {"path": "a.txt"},
    "write_file": {"file_path": "new.txt", "content": "x"},
    "replace": {"file_path": "a.txt", "old_string": "alpha", "new_string": "beta"},
    "glob": {"pattern": "*.txt"},
    "search_file_content": {"pattern": "alpha"},
    "list_directory": {"path": "."},
    "read_many_files": {"paths": ["a.txt"]},
    "run_shell_command": {"command": "true"},
    "web_fetch": {"prompt": "summarize https://example.com"},
    "google_web_search": {"query": "x"},
    "save_memory": {"fact": "the sky is blue"},
}
# Gemini CLI parameter names each tool accepts without a note
GEMINI_CLI_NAMES: dict[str, dict[str, Any]] = {
    "replace": {"instruction": "Change alpha to beta in the greeting."},
    "glob": {"respect_gemini_ignore": True, "dir_path": "."},
    "list_directory": {"file_filtering_options": {"respect_git_ignore": True}, "dir_path": "."},
    "search_file_content": {"dir_path": "."},
    "read_many_files": {"file_filtering_options": {"respect_git_ignore": True}},
    "read_file": {"absolute_path": "a.txt"},
}
WRONG_BY_TYPE = {"string": [5, ["a"], {"a": 1}], "integer": ["abc", [1], {"n": 1}], "boolean": [[True], {"b": 1}],
                 "array": [5, {"a": 1}]}


@pytest.fixture
def tools(root: Path, home: Path) -> dict[str, BaseTool[Any]]:
    (root / "a.txt").write_text("alpha\n")
    registry = build_registry(Settings(home=home), Workspace(root), env={})
    return {tool.name: tool for tool in registry.tools}


def _unknown_names(rng: random.Random) -> list[str]:
    return rng.sample(["colour", "verbose", "reason", "mode", "x_extra", "dryRun", "timeout_ms", "notes",
                       "caseSensitive2", "max"], rng.randint(1, 3))


def test_every_tool_is_covered(tools: dict[str, BaseTool[Any]]) -> None:
    assert set(VALID) == set(tools)


@pytest.mark.parametrize("seed", range(10))
async def test_unknown_parameters_are_ignored_and_named(tools: dict[str, BaseTool[Any]], seed: int) -> None:
    rng = random.Random(seed)
    for name in ("read_file", "glob", "list_directory", "search_file_content", "read_many_files"):
        tool = tools[name]
        extra = _unknown_names(rng)
        params = tool.validate_params({**VALID[name], **{key: rng.random() for key in extra}})
        assert not isinstance(params, ToolError), (name, params)
        assert sorted(params.ignored) == sorted(extra)
        result = await tool.execute(params, AbortSignal())
        assert result.ok, (name, result.llm_content)
        text = result.llm_content if isinstance(result.llm_content, str) else str(result.llm_content)
        assert "ignored unknown parameter(s)" in text and all(key in text for key in extra)
    for name, tool in tools.items():  # validation alone for the tools that would write, run or fetch
        params = tool.validate_params({**VALID[name], "unknown_thing": 1})
        assert not isinstance(params, ToolError) and params.ignored == ("unknown_thing",), name


def test_gemini_cli_names_are_accepted_without_a_note(tools: dict[str, BaseTool[Any]]) -> None:
    for name, extra in GEMINI_CLI_NAMES.items():
        args = {**VALID[name], **extra}
        if name == "read_file":
            args.pop("path")
        params = tools[name].validate_params(args)
        assert not isinstance(params, ToolError), (name, params)
        assert params.ignored == (), name


def test_wrong_types_of_known_parameters_are_refused(tools: dict[str, BaseTool[Any]]) -> None:
    checked = 0
    for name, tool in tools.items():
        properties = tool.parameter_schema.get("properties", {})
        for field, schema in properties.items():
            for wrong in WRONG_BY_TYPE.get(schema.get("type", ""), []):
                result = tool.validate_params({**VALID[name], field: wrong})
                assert isinstance(result, ToolError), (name, field, wrong)
                assert field in result.message
                checked += 1
    assert checked > 40
