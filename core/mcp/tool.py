"""DiscoveredMCPTool: one tool of an MCP server, callable by the model under a Gemini-valid name."""

from __future__ import annotations

import asyncio
from typing import Any

from gemini_tui.core.ground.abort import AbortSignal, finished_unless_aborted
from gemini_tui.core.ground.confirmation import ConfirmationDetails, McpConfirmation
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.mcp.connection import McpConnection, McpUnavailable, describe_error
from gemini_tui.core.mcp.results import result_parts, to_display, to_llm_content
from gemini_tui.core.tooling.declared_tool import DeclaredParams, DeclaredTool
from gemini_tui.core.tooling.needs import CallNeeds
from gemini_tui.core.tooling.tool import CallContext


class DiscoveredMCPTool(DeclaredTool):
    """Calls `server_tool_name` on its server's connection. Untrusted servers ask first (`McpConfirmation`);
    "allow this tool" / "allow this server" for the session are kept by the scheduler."""

    def __init__(self, connection: McpConnection, server_tool_name: str, name: str, description: str,
                 schema: dict[str, Any], *, trust: bool = False) -> None:
        super().__init__(schema)
        self.connection = connection
        self.server_name = connection.alias
        self.server_tool_name = server_tool_name
        self.name = name  # type: ignore[misc]
        self.display_name = f"{server_tool_name} ({connection.alias} MCP Server)"  # type: ignore[misc]
        self.description = description  # type: ignore[misc]
        self.trust = trust

    def get_description(self, params: DeclaredParams) -> str:
        # the row already shows the display name (tool and server): the arguments are what is new here
        return self.arguments_json(params)

    def needs(self, params: DeclaredParams) -> CallNeeds:
        return CallNeeds(mcp_server=self.server_name, mcp_tool=self.server_tool_name, trusted_server=self.trust)

    async def should_confirm_execute(self, params: DeclaredParams,
                                     abort_signal: AbortSignal) -> ConfirmationDetails | None:
        return McpConfirmation(
            title="Confirm MCP Tool Execution", server_name=self.server_name, tool_name=self.server_tool_name,
            tool_display_name=self.display_name,
            arguments=self.arguments_json(params, indent=2),
        )

    async def _execute(self, params: DeclaredParams, abort_signal: AbortSignal,
                       context: CallContext) -> ToolResult:
        async def progress(done: float, total: float | None, message: str | None) -> None:
            # a long call's notifications/progress, shown on the call in the queue like a command's output
            if context.on_output is not None:
                amount = f"{done:g}/{total:g}" if total else f"{done:g}"
                context.on_output(f"progress {amount}{f': {message}' if message else ''}\n")

        call = asyncio.ensure_future(self.connection.call(self.server_tool_name, params.model_dump(),
                                                          on_progress=progress))
        if not await finished_unless_aborted(call, abort_signal):
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
