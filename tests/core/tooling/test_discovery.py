"""Command discovery: a real discovery script offering two tools, calls over stdin/stdout, and each failure."""

from __future__ import annotations

import asyncio
import shlex
import sys
from pathlib import Path

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import InfoConfirmation
from gemini_tui.core.ground.tool_result import ToolErrorKind, ToolResult
from gemini_tui.core.tooling.discovered_tool import DiscoveredParams, DiscoveredTool, discover_tools
from gemini_tui.core.tooling.registry import ToolRegistry

SCRIPT = Path(__file__).resolve().parents[2] / "fakes" / "discovery_tool.py"
PY = shlex.quote(sys.executable)


def command(mode: str = "ok") -> str:
    return f"{PY} {shlex.quote(str(SCRIPT))} discover {mode}"


CALL = f"{PY} {shlex.quote(str(SCRIPT))} call"


def tools_by_name(mode: str = "ok") -> dict[str, DiscoveredTool]:
    found = discover_tools(command(mode), CALL)
    assert found.errors == []
    return {tool.name: tool for tool in found.tools}


@pytest.mark.parametrize("mode", ["ok", "bare"])
def test_discovers_two_tools_with_clean_schemas(mode: str) -> None:
    tools = tools_by_name(mode)
    assert sorted(tools) == ["add", "shout"]
    declaration = tools["shout"].function_declaration()
    assert declaration["name"] == "shout"
    assert declaration["description"].startswith("Upper-cases text")
    assert declaration["parameters"] == {"type": "object", "properties": {"text": {"type": "string"}},
                                         "required": ["text"]}
    registry = ToolRegistry()
    for tool in tools.values():
        registry.register(tool)
    assert [d["name"] for d in registry.function_declarations()] == ["add", "shout"]


async def call(tool: DiscoveredTool, args: dict[str, object]) -> ToolResult:
    params = tool.validate_params(args)
    assert isinstance(params, DiscoveredParams), params
    return await tool.execute(params, AbortSignal())


async def test_call_success_and_confirmation() -> None:
    tools = tools_by_name()
    result = await call(tools["add"], {"a": 2, "b": 40})
    assert result.ok and result.llm_content.strip() == "42"
    params = tools["shout"].validate_params({"text": "hi"})
    details = await tools["shout"].should_confirm_execute(params, AbortSignal())
    assert isinstance(details, InfoConfirmation) and '"text": "hi"' in details.prompt
    assert (await call(tools["shout"], {"text": "hi"})).llm_content == "HI"


@pytest.mark.parametrize(("text", "stdout", "stderr", "code"), [
    ("fail", "partial", "it failed", "2"),
    ("warn", "ok-ish", "a warning", "0"),  # stderr means failure even with exit 0
])
async def test_call_failure_reports_everything(text: str, stdout: str, stderr: str, code: str) -> None:
    result = await call(tools_by_name()["shout"], {"text": text})
    assert result.error is not None and result.error.kind is ToolErrorKind.execution_failed
    assert f"Stdout: {stdout}" in result.llm_content
    assert f"Stderr: {stderr}" in result.llm_content
    assert f"Exit Code: {code}" in result.llm_content


def test_missing_required_argument_is_invalid() -> None:
    error = tools_by_name()["add"].validate_params({"a": 1})
    assert not isinstance(error, DiscoveredParams)
    assert error.kind is ToolErrorKind.invalid_params and "b" in error.message


async def test_call_timeout_and_cancel() -> None:
    tool = tools_by_name()["shout"]
    slow = DiscoveredTool(tool.function_declaration(), CALL, call_timeout_s=0.5)
    result = await call(slow, {"text": "sleep"})
    assert result.error is not None and result.error.kind is ToolErrorKind.timeout
    signal = AbortSignal()
    params = tool.validate_params({"text": "sleep"})
    task = asyncio.create_task(tool.execute(params, signal))
    await asyncio.sleep(0.3)
    signal.abort()
    result = await asyncio.wait_for(task, 5)
    assert result.error is not None and result.error.kind is ToolErrorKind.cancelled


@pytest.mark.parametrize(("mode", "message"), [
    ("badjson", "invalid JSON"),
    ("fail", "exit code 3"),
    ("hang", "timed out"),
])
def test_discovery_failures_are_clear(mode: str, message: str) -> None:
    found = discover_tools(command(mode), CALL, timeout_s=1.0)
    assert found.tools == []
    assert len(found.errors) == 1 and message in found.errors[0]
    if mode == "fail":
        assert "cannot discover: no config" in found.errors[0]


def test_bad_declaration_is_skipped_others_load() -> None:
    found = discover_tools(command("badname"), CALL)
    assert [t.name for t in found.tools] == ["add"]
    assert "bad name!" in found.errors[0]


@pytest.mark.parametrize(("discovery", "call_command", "message"), [
    ("/nonexistent/discover", CALL, "could not run"),
    (command(), None, "tools.callCommand is not"),
    ("'unbalanced", CALL, "cannot be parsed"),
])
def test_misconfiguration(discovery: str, call_command: str | None, message: str) -> None:
    found = discover_tools(discovery, call_command)
    assert found.tools == [] and message in found.errors[0]


async def test_stopping_a_background_discovery_ends_its_command() -> None:
    # the session closes (the user quits) while a discovery command hangs: it must not outlive gemini-tui
    import os
    import time

    from gemini_tui.core.tooling.discovered_tool import BackgroundDiscovery

    discovery = BackgroundDiscovery(command("hang"), CALL)
    deadline = time.monotonic() + 10
    while discovery.process is None and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert discovery.process is not None
    discovery.stop()
    found = await asyncio.wait_for(discovery.result(), 10)
    assert found.tools == [] and found.errors
    with pytest.raises(ProcessLookupError):
        os.kill(discovery.process.pid, 0)


async def test_a_json_schema_declaration_reaches_the_model_as_declared(gemini_server) -> None:
    # Gemini CLI's tool-registry test: "format": "uuid" survives discovery, on the way to the model
    from gemini_tui.core.ground.model_api import Content, ModelRequest
    from gemini_tui.core.ground.parts import TextPart
    from gemini_tui.core.models.gemini import GeminiModel
    from tests.fakes.gemini_server import reply, text

    [tool] = discover_tools(command("jsonschema"), CALL).tools
    declared = {"type": "object", "properties": {"id": {"type": "string", "format": "uuid"},
                                                 "when": {"type": "string", "format": "date"}},
                "required": ["id"], "additionalProperties": False}
    assert tool.function_declaration()["parameters_json_schema"] == declared
    assert isinstance(tool.validate_params({"id": "x"}), DiscoveredParams)
    assert not isinstance(tool.validate_params({"when": "today"}), DiscoveredParams)  # `id` is required
    gemini_server.script(reply(text("ok")))
    model = GeminiModel("gemini-2.5-pro", "key", base_url=gemini_server.base_url)
    request = ModelRequest(contents=(Content("user", [TextPart("hi")]),), tools=(tool.function_declaration(),))
    async for _ in model.stream(request, AbortSignal()):
        pass
    [sent] = gemini_server.requests[-1].body["tools"][0]["functionDeclarations"]
    # google-genai writes the field by its proto name; the API reads either spelling
    assert sent["name"] == "lookup" and "parameters" not in sent
    assert sent.get("parametersJsonSchema", sent.get("parameters_json_schema")) == declared
