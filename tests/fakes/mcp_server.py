"""A real MCP server for tests (the mcp package's MCPServer), run as a process over stdio, SSE or streamable
HTTP: `python mcp_server.py [stdio | sse PORT | http PORT]`. Its tools cover text, images, embedded resources,
a schema Gemini cannot take, stderr noise and a crash in the middle of a call."""

from __future__ import annotations

import base64
import os
import sys
import threading

from mcp.server.mcpserver import MCPServer
from mcp_types import BlobResourceContents, EmbeddedResource, ImageContent, TextContent, TextResourceContents
from pydantic import BaseModel, Field

PNG_1PX = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)).decode()

server = MCPServer("fake-tools")


class Node(BaseModel):
    """A tree: its schema refers to itself, which Gemini declarations cannot express."""

    name: str
    children: list[Node] = Field(default_factory=list)


@server.tool(description="Echoes the text back.")
def echo(text: str) -> str:
    print(f"echo called with {text!r}", file=sys.stderr, flush=True)  # must never reach the user's terminal
    return f"echo: {text}"


@server.tool(description="Adds two integers.")
def add(a: int, b: int) -> str:
    return str(a + b)


@server.tool(description="Returns a one-pixel PNG and a caption.")
def picture() -> list[TextContent | ImageContent]:
    return [TextContent(type="text", text="a pixel"), ImageContent(type="image", data=PNG_1PX, mimeType="image/png")]


@server.tool(description="Returns embedded resources, text and binary.")
def resources() -> list[EmbeddedResource]:
    return [
        EmbeddedResource(type="resource", resource=TextResourceContents(uri="file:///notes.txt", text="note body",
                                                                        mimeType="text/plain")),
        EmbeddedResource(type="resource", resource=BlobResourceContents(uri="file:///x.bin", blob="AAEC",
                                                                        mimeType="application/octet-stream")),
    ]


@server.tool(description="Fails with an error result.")
def fail() -> str:
    raise ValueError("this tool always fails")


@server.tool(description="Walks a tree (recursive schema).")
def walk(tree: Node) -> str:
    return tree.name


@server.tool(name="dotted-name.tool", description="A name with characters to keep.")
def dotted() -> str:
    return "ok"


@server.tool(description="Answers, then the server exits a moment later (a crash while idle).")
def exit_soon() -> str:
    threading.Timer(0.2, os._exit, args=(4,)).start()
    return "bye"


@server.tool(description="Kills the server process in the middle of the call.")
def crash() -> str:
    os._exit(3)


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    print("fake MCP server starting", file=sys.stderr, flush=True)
    if mode == "stdio":
        server.run()
    elif mode == "sse":
        server.run("sse", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
