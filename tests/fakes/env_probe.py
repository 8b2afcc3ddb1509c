"""A helper process that reports the environment it was started with, in every way gemini-tui starts one:
`python env_probe.py mcp` is a stdio MCP server whose `get_env` tool returns its environment as JSON;
`discover` prints a declaration of `get_env` whose description is the environment; `call get_env` prints it."""

from __future__ import annotations

import json
import os
import sys


def environment() -> str:
    return json.dumps(dict(os.environ), sort_keys=True)


def serve_mcp() -> None:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("env-probe")

    @server.tool(name="get_env", description="Returns this server's environment as a JSON object.")
    def get_env() -> str:
        return environment()

    server.run()


if __name__ == "__main__":
    match sys.argv[1:]:
        case ["mcp"]:
            serve_mcp()
        case ["discover"]:
            print(json.dumps([{"name": "get_env", "description": environment(),
                               "parameters": {"type": "object", "properties": {}}}]))
        case ["call", "get_env"]:
            sys.stdin.read()
            print(environment())
        case other:
            sys.exit(f"unknown arguments: {other}")
