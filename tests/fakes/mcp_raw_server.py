"""A minimal MCP server speaking JSON-RPC over stdio by hand, for what the SDK's server will not send: a
`tools/call` result with a content block of a type the spec does not know (a newer server's)."""

from __future__ import annotations

import json
import sys
from typing import Any

TOOLS = [{"name": "odd", "description": "Answers with a block of an unknown type.",
          "inputSchema": {"type": "object", "properties": {}}}]


def answer(request: dict[str, Any]) -> dict[str, Any] | None:
    method, ident = request.get("method"), request.get("id")
    if ident is None:
        return None  # a notification
    if method == "initialize":
        version = (request.get("params") or {}).get("protocolVersion", "2025-06-18")
        result: dict[str, Any] = {"protocolVersion": version, "capabilities": {"tools": {}},
                                  "serverInfo": {"name": "raw", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "kept text"},
                              {"type": "hologram", "data": "3d", "mimeType": "model/holo"},
                              {"type": "resource_link", "uri": "file:///a.md", "name": "a.md", "title": "The A file"}],
                  "isError": False}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": f"no method {method}"}}
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
