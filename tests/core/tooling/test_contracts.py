"""The tool API contracts: schema cleaning, registry filters and suggestions, abort signals, event fan-out."""

from __future__ import annotations

import asyncio
import threading

import pytest
from pydantic import Field

from gemini_tui.core.ground.abort import AbortSignal, finished_unless_aborted
from gemini_tui.core.ground.events import EventBus, TextDelta, TurnEndReason, TurnFinished
from gemini_tui.core.ground.tool_result import ToolErrorKind, ToolResult
from gemini_tui.core.tooling.registry import ToolRegistry
from gemini_tui.core.tooling.schema import SchemaError, clean_schema
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams


class EchoParams(ToolParams):
    text: str = Field(description="What to echo.")
    times: int | None = Field(default=None, description="How often.")


class EchoTool(BaseTool[EchoParams]):
    name = "echo"
    display_name = "Echo"
    description = "Echoes text."
    Params = EchoParams
    kind = ToolKind.read

    async def _execute(self, params: EchoParams, abort_signal: AbortSignal, context: CallContext) -> ToolResult:
        if params.text == "boom":
            raise RuntimeError("exploded")
        return ToolResult(params.text * (params.times or 1), params.text)


def test_schema_is_gemini_shaped() -> None:
    schema = EchoTool().parameter_schema
    assert schema["type"] == "object"
    assert schema["required"] == ["text"]
    assert "title" not in schema and "title" not in schema["properties"]["text"]
    assert schema["properties"]["times"] == {"type": "integer", "description": "How often.", "nullable": True}


def test_schema_inlines_refs_and_rejects_recursion() -> None:
    schema = {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
              "$defs": {"A": {"type": "object", "properties": {"x": {"type": "string", "const": "k"}}}}}
    assert clean_schema(schema)["properties"]["a"]["properties"]["x"] == {"type": "string", "enum": ["k"]}
    recursive = {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
                 "$defs": {"A": {"type": "object", "properties": {"self": {"$ref": "#/$defs/A"}}}}}
    with pytest.raises(SchemaError):
        clean_schema(recursive)


def test_validation_names_the_field() -> None:
    error = EchoTool().validate_params({"times": "x"})
    assert not isinstance(error, EchoParams)
    assert error.kind is ToolErrorKind.invalid_params
    assert "'text'" in error.message and "'times'" in error.message
    assert isinstance(EchoTool().validate_params({"text": "hi"}), EchoParams)


async def test_execute_never_raises() -> None:
    tool = EchoTool()
    result = await tool.execute(EchoParams(text="boom"), AbortSignal())
    assert result.error is not None and result.error.kind is ToolErrorKind.execution_failed
    assert "exploded" in str(result.llm_content)
    aborted = AbortSignal()
    aborted.abort()
    assert (await tool.execute(EchoParams(text="x"), aborted)).error.kind is ToolErrorKind.cancelled


def test_registry_filters_and_suggests() -> None:
    registry = ToolRegistry(deny=["Echo"])
    assert not registry.register(EchoTool())
    registry = ToolRegistry(allow=["EchoTool"])
    assert registry.register(EchoTool())
    assert registry.suggest("ecoh") == ["echo"]
    assert "Did you mean 'echo'" in registry.unknown_tool_message("ecoh")
    assert registry.function_declarations()[0]["name"] == "echo"
    assert not ToolRegistry(allow=["read_file"]).register(EchoTool())
    # a rule with an argument narrows a tool; it does not remove it
    assert ToolRegistry(deny=["echo(rm)"]).register(EchoTool())


def test_a_call_to_a_disabled_tool_says_the_settings_disabled_it() -> None:
    # not "did you mean <some other tool>?": the model should stop asking for it, the user should see why
    registry = ToolRegistry(deny=["echo"])
    registry.register(EchoTool())
    message = registry.unknown_tool_message("echo")
    assert "disabled" in message and "tools.exclude" in message and "Did you mean" not in message


async def test_abort_signal_wakes_waiters_from_threads() -> None:
    signal = AbortSignal()
    child = signal.child()
    threading.Timer(0.05, signal.abort).start()
    await asyncio.wait_for(child.wait(), 2)
    assert child.aborted and signal.aborted


async def test_event_bus_fans_out_in_order() -> None:
    bus = EventBus()
    first, second = bus.subscribe(), bus.subscribe()
    collected: list[list[object]] = [[], []]

    async def drain(index: int, stream) -> None:  # type: ignore[no-untyped-def]
        async for event in stream:
            collected[index].append(event)

    tasks = [asyncio.create_task(drain(0, first)), asyncio.create_task(drain(1, second))]
    await asyncio.sleep(0)
    bus.publish(TextDelta("a"))
    bus.publish(TurnFinished("p1", TurnEndReason.completed))
    bus.close()
    await asyncio.gather(*tasks)
    assert collected[0] == collected[1] == [TextDelta("a"), TurnFinished("p1", TurnEndReason.completed)]


async def test_finished_unless_aborted() -> None:
    signal = AbortSignal()
    quick = asyncio.ensure_future(asyncio.sleep(0, "done"))
    assert await finished_unless_aborted(quick, signal) and quick.result() == "done"
    slow = asyncio.ensure_future(asyncio.sleep(30))
    asyncio.get_running_loop().call_later(0.05, signal.abort)
    assert not await finished_unless_aborted(slow, signal)
    assert slow.cancelled()
    # the caller itself cancelled (a cancelled turn): the work goes too
    signal = AbortSignal()
    work = asyncio.ensure_future(asyncio.sleep(30))
    waiter = asyncio.ensure_future(finished_unless_aborted(work, signal))
    await asyncio.sleep(0.05)
    waiter.cancel()
    await asyncio.gather(waiter, return_exceptions=True)
    assert work.cancelled()


def test_tools_core_limits_built_in_tools_only() -> None:
    # tools.core is the allow-list of built-ins (Gemini CLI); MCP and discovered tools are governed by their
    # own settings (mcpServers.*.includeTools/excludeTools) and tools.exclude
    from gemini_tui.core.tooling.discovered_tool import DiscoveredTool

    registry = ToolRegistry(allow=["read_file"], deny=["banned"])
    assert not registry.register(EchoTool())
    assert registry.register(DiscoveredTool({"name": "from_project"}, "true"))
    assert not registry.register(DiscoveredTool({"name": "banned"}, "true"))

