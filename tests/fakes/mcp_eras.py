"""MCP servers of both protocol eras for tests (the mcp 2.x SDK's MCPServer); each has a tool `grow` that adds
the tool `late` (named `late_KIND`, so several can share a session) and announces it:

- `modern`: refuses the `initialize` handshake, speaks only the 2026-07-28 protocol, announces on the bus;
- `bus`: the SDK's default (both eras) and announces only on the subscriptions bus (`notify_tools_changed`),
  as the SDK's documentation shows;
- `dual`: both eras, and announces both ways (the bus, and a plain list_changed for handshake clients);
- `handshake`: answers `server/discover` with "method not found" as a handshake-only server does, announces
  with a plain list_changed notification, and has a tool `roots` that asks the client for its roots.

`python mcp_eras.py KIND [stdio | http PORT]`; `app(KIND)` gives the streamable-HTTP ASGI app for in-process use."""

from __future__ import annotations

import sys
from typing import Any

from mcp import MCPError
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import METHOD_NOT_FOUND, UNSUPPORTED_PROTOCOL_VERSION


async def refuse_handshake(ctx: Any, call_next: Any) -> Any:
    if getattr(ctx, "method", None) == "initialize":
        raise MCPError(code=UNSUPPORTED_PROTOCOL_VERSION, message="this server speaks only the 2026-07-28 protocol",
                       data={"supported": ["2026-07-28"]})
    return await call_next(ctx)


async def refuse_discovery(ctx: Any, call_next: Any) -> Any:
    if getattr(ctx, "method", None) == "server/discover":
        raise MCPError(code=METHOD_NOT_FOUND, message="Method not found")
    return await call_next(ctx)


MIDDLEWARE = {"modern": [refuse_handshake], "handshake": [refuse_discovery]}


def build(kind: str) -> MCPServer:
    server = MCPServer(f"eras-{kind}", middleware=MIDDLEWARE.get(kind))

    @server.tool(description="Says which protocol version the request came in.")
    def era(ctx: Context) -> str:
        return f"{kind} server answering"

    @server.tool(description="Adds the tool `late` and announces it.")
    async def grow(ctx: Context) -> str:
        def late() -> str:
            return f"late tool of {kind} ran"

        server.add_tool(late, name=f"late_{kind}", description="A tool that came later.")
        if kind in ("dual", "handshake"):
            await ctx.session.send_tool_list_changed()  # a handshake-era client hears a plain notification
        if kind != "handshake":
            await ctx.notify_tools_changed()  # only the subscriptions bus hears it
        return "grew"

    if kind == "handshake":
        @server.tool(description="Lists the client's roots.")
        async def roots(ctx: Context) -> str:
            found = await ctx.session.list_roots()
            return " ".join(str(root.uri) for root in found.roots)

    return server


async def serve_handshake_only(server: MCPServer) -> None:
    """stdio with the SDK's handshake-only loop (`MCPServer.run` serves both eras)."""
    from mcp.server.runner import serve_loop
    from mcp.server.stdio import stdio_server

    low = server._lowlevel_server
    async with stdio_server() as (read, write), low.lifespan(low) as state:
        await serve_loop(low, read, write, lifespan_state=state, init_options=low.create_initialization_options())


def app(kind: str) -> Any:
    return build(kind).streamable_http_app()


if __name__ == "__main__":
    kind = sys.argv[1]
    transport = sys.argv[2] if len(sys.argv) > 2 else "stdio"
    server = build(kind)
    if transport == "stdio" and kind == "handshake":
        import anyio

        anyio.run(serve_handshake_only, server)
    elif transport == "stdio":
        server.run()
    else:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[3]))
