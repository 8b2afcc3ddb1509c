"""DiscoveredMCPTool: one tool of an MCP server, callable by the model under a Gemini-valid name."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from core.abort import AbortSignal
from core.confirmation import ConfirmationDetails, McpConfirmation
from core.discovered_tool import DiscoveredParams
from core.mcp.connection import McpConnection, McpUnavailable, describe_error
from core.mcp.results import result_parts, to_display, to_llm_content
from core.tool import BaseTool, CallContext, ToolError, ToolErrorKind, ToolKind, ToolResult


class DiscoveredMCPTool(BaseTool[DiscoveredParams]):
    """Calls `server_tool_name` on its server's connection. Untrusted servers ask first (`McpConfirmation`);
    "allow this tool" / "allow this server" for the session are kept by the scheduler."""

    Params = DiscoveredParams
    kind = ToolKind.other

    def __init__(self, connection: McpConnection, server_tool_name: str, name: str, description: str,
                 schema: dict[str, Any], *, trust: bool = False) -> None:
        self.connection = connection
        self.server_name = connection.alias
        self.server_tool_name = server_tool_name
        self.name = name  # type: ignore[misc]
        self.display_name = f"{server_tool_name} ({connection.alias} MCP Server)"  # type: ignore[misc]
        self.description = description  # type: ignore[misc]
        self._schema = schema
        self.trust = trust

    @property
    def parameter_schema(self) -> dict[str, Any]:
        return self._schema

    def check_params(self, params: DiscoveredParams) -> ToolError | None:
        given = params.model_dump()
        missing = [name for name in self._schema.get("required", []) if name not in given]
        if missing:
            return ToolError(ToolErrorKind.invalid_params,
                             f"Invalid parameters for {self.name}: missing required {', '.join(missing)}.")
        return None

    def get_description(self, params: DiscoveredParams) -> str:
        return f"{self.server_tool_name} {json.dumps(params.model_dump(), ensure_ascii=False)}"

    async def should_confirm_execute(self, params: DiscoveredParams,
                                     abort_signal: AbortSignal) -> ConfirmationDetails | None:
        if self.trust:
            return None
        return McpConfirmation(
            title="Confirm MCP Tool Execution", server_name=self.server_name, tool_name=self.server_tool_name,
            tool_display_name=self.display_name,
            arguments=json.dumps(params.model_dump(), indent=2, ensure_ascii=False),
        )

    async def _execute(self, params: DiscoveredParams, abort_signal: AbortSignal,
                       context: CallContext) -> ToolResult:
        call = asyncio.create_task(self.connection.call(self.server_tool_name, params.model_dump()))
        aborted = asyncio.create_task(abort_signal.wait())
        await asyncio.wait({call, aborted}, return_when=asyncio.FIRST_COMPLETED)
        aborted.cancel()
        if not call.done():
            call.cancel()
            await asyncio.gather(call, return_exceptions=True)
            return ToolResult.failure(ToolErrorKind.cancelled, f"{self.name} was cancelled.")
        try:
            result = call.result()
        except McpUnavailable as exc:
            return ToolResult.failure(ToolErrorKind.execution_failed, str(exc))
        except TimeoutError:
            return ToolResult.failure(ToolErrorKind.timeout, f"MCP tool {self.server_tool_name} on "
                                      f'"{self.server_name}" did not answer within '
                                      f"{self.connection.call_timeout_s:g} s.")
        except Exception as exc:  # a protocol error from the server: the model reads it, the app goes on
            return ToolResult.failure(ToolErrorKind.execution_failed,
                                      f"MCP tool {self.server_tool_name} failed: {describe_error(exc)}")
        parts = result_parts(result)
        is_error = bool(getattr(result, "is_error", False))
        display = to_display(self.server_name, self.server_tool_name, parts, is_error)
        llm_content = to_llm_content(parts)
        if is_error:
            text = display.text or "the tool reported an error without a message"
            message = f"MCP tool {self.server_tool_name} returned an error: {text}"
            return ToolResult(message, display, ToolError(ToolErrorKind.execution_failed, message))
        return ToolResult(llm_content if parts else "(no content)", display)
