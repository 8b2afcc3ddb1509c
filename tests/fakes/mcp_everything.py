"""An MCP server with the features beyond tools (as the reference `server-everything` has them): prompts with
arguments, resources, a tool that adds a tool and says the list changed, a long call that reports progress, and
a tool that asks the client for its roots. Like the reference server of Gemini CLI's era it speaks only the
handshake (it announces changes with plain notifications and asks for roots with a request, which the SDK sends
only on handshake connections). `python mcp_everything.py [stdio | http PORT]`."""

from __future__ import annotations

import asyncio
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp_eras import refuse_discovery, serve_handshake_only

server = MCPServer("everything", middleware=[refuse_discovery])


@server.prompt(description="Asks for a code review of a file")
def review(file: str, focus: str = "bugs") -> str:
    return f"Please review {file}, looking for {focus}."


@server.resource("notes://today", name="today", description="Today's notes", mime_type="text/plain")
def today() -> str:
    return "RESOURCE-TEXT: buy milk"


@server.tool(description="Adds the tool `late_tool` and tells the client the tool list changed.")
async def add_tool(ctx: Context) -> str:
    def late_tool() -> str:
        """A tool that exists only after add_tool ran."""
        return "late tool ran"

    server.add_tool(late_tool, description="A tool that exists only after add_tool ran.")

    @server.prompt(name="late_prompt", description="A prompt added later")
    def late_prompt() -> str:
        return "LATE PROMPT"

    await ctx.request_context.session.send_tool_list_changed()
    await ctx.request_context.session.send_prompt_list_changed()
    return "added"


@server.tool(description="Works in three steps, reporting progress.")
async def slow(ctx: Context, steps: int = 3) -> str:
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
        await asyncio.sleep(0.15)
    return "slow done"


@server.tool(description="Lists the client's roots.")
async def show_roots(ctx: Context) -> str:
    result = await ctx.request_context.session.list_roots()
    return "\n".join(str(root.uri) for root in result.roots)


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "stdio":
        import anyio

        anyio.run(serve_handshake_only, server)
    else:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
