"""MCP servers of the new protocol era for tests (the mcp 2.x SDK's MCPServer):

- `modern`: refuses the `initialize` handshake, speaks only the 2026-07-28 protocol;
- `bus`: modern only too, and announces a tool it adds only on the subscriptions bus (`notify_tools_changed`);
- `dual`: the SDK's default, both eras, and a plain list_changed notification for handshake clients.

`python mcp_eras.py KIND [stdio | http PORT]`; `app(KIND)` gives the streamable-HTTP ASGI app for in-process use."""

from __future__ import annotations

import sys
from typing import Any

from mcp import MCPError
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import UNSUPPORTED_PROTOCOL_VERSION


async def refuse_handshake(ctx: Any, call_next: Any) -> Any:
    if getattr(ctx, "method", None) == "initialize":
        raise MCPError(code=UNSUPPORTED_PROTOCOL_VERSION, message="this server speaks only the 2026-07-28 protocol",
                       data={"supported": ["2026-07-28"]})
    return await call_next(ctx)


def build(kind: str) -> MCPServer:
    server = MCPServer(f"eras-{kind}", middleware=[refuse_handshake] if kind in ("modern", "bus") else None)

    @server.tool(description="Says which protocol version the request came in.")
    def era(ctx: Context) -> str:
        return f"{kind} server answering"

    @server.tool(description="Adds the tool `late` and announces it.")
    async def grow(ctx: Context) -> str:
        @server.tool(description="A tool that came later.")
        def late() -> str:
            return "late tool ran"

        if kind == "dual":
            await ctx.session.send_tool_list_changed()  # a handshake-era client hears a plain notification
        else:
            await ctx.notify_tools_changed()  # only the subscriptions bus hears it
        return "grew"

    return server


def app(kind: str) -> Any:
    return build(kind).streamable_http_app()


if __name__ == "__main__":
    kind = sys.argv[1]
    transport = sys.argv[2] if len(sys.argv) > 2 else "stdio"
    server = build(kind)
    if transport == "stdio":
        server.run()
    else:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[3]))
