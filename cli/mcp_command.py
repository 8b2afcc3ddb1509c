"""`gemini-tui mcp add|list|remove`: edits `mcpServers` in settings.json the way `gemini mcp` does."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from gemini_tui.core.setup.config import load_settings
from gemini_tui.core.setup.settings_edit import SettingsFileError, read_for_edit, settings_path, write_settings

TRANSPORTS = ("stdio", "sse", "http")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gemini-tui mcp", description="Manage MCP servers in settings.json "
                                     "(the same entries `gemini mcp` writes).")
    sub = parser.add_subparsers(dest="action", required=True)
    add = sub.add_parser("add", help="add (or replace) a server",
                         usage="gemini-tui mcp add [options] <name> <commandOrUrl> [args...]")
    add.add_argument("name")
    add.add_argument("command_or_url", metavar="commandOrUrl", help="command (stdio) or URL (sse, http)")
    add.add_argument("args", nargs=argparse.REMAINDER, help="arguments of a stdio command (after -- if they "
                                                            "start with -)")
    add.add_argument("-s", "--scope", choices=("user", "project"), default="project")
    add.add_argument("-t", "--transport", "--type", choices=TRANSPORTS, default="stdio")
    add.add_argument("-e", "--env", action="append", default=[], metavar="KEY=value")
    add.add_argument("-H", "--header", action="append", default=[], metavar="'Name: value'")
    add.add_argument("--timeout", type=int, metavar="MS")
    add.add_argument("--trust", action="store_true", default=None)
    add.add_argument("--description")
    add.add_argument("--include-tools", metavar="A,B")
    add.add_argument("--exclude-tools", metavar="A,B")
    remove = sub.add_parser("remove", help="remove a server")
    remove.add_argument("name")
    remove.add_argument("-s", "--scope", choices=("user", "project"), default="project")
    sub.add_parser("list", help="list the configured servers and whether they connect")
    return parser


def server_entry(args: argparse.Namespace) -> dict[str, Any]:
    """The entry `gemini mcp add` writes for these flags (unset options are left out)."""
    headers: dict[str, str] = {}
    for item in args.header:
        key, _, value = item.partition(":")
        if key.strip() and value.strip():
            headers[key.strip()] = value.strip()
    entry: dict[str, Any]
    if args.transport in ("sse", "http"):
        entry = {"url": args.command_or_url, "type": args.transport}
        if headers:
            entry["headers"] = headers
    else:
        server_args = list(args.args)
        if server_args[:1] == ["--"]:
            server_args = server_args[1:]
        entry = {"command": args.command_or_url, "args": server_args}
        env = dict(item.split("=", 1) for item in args.env if "=" in item and item.split("=", 1)[1])
        if env:
            entry["env"] = env
    for key, value in (("timeout", args.timeout), ("trust", args.trust), ("description", args.description)):
        if value is not None:
            entry[key] = value
    for key, value in (("includeTools", args.include_tools), ("excludeTools", args.exclude_tools)):
        if value:
            entry[key] = [v.strip() for v in value.split(",") if v.strip()]
    return entry


def add(args: argparse.Namespace, root: Path) -> int:
    path = settings_path(args.scope, root)
    data = read_for_edit(path)
    servers = data.get("mcpServers")
    if not isinstance(servers, dict):
        servers = {}
    existed = args.name in servers
    servers[args.name] = server_entry(args)
    data["mcpServers"] = servers
    write_settings(path, data)
    verb = "updated in" if existed else "added to"
    print(f'MCP server "{args.name}" {verb} {args.scope} settings ({path}). ({args.transport})')
    return 0


def remove(args: argparse.Namespace, root: Path) -> int:
    path = settings_path(args.scope, root)
    data = read_for_edit(path)
    servers = data.get("mcpServers")
    if not isinstance(servers, dict) or args.name not in servers:
        print(f'Server "{args.name}" not found in {args.scope} settings ({path}).')
        return 1
    del servers[args.name]
    write_settings(path, data)
    print(f'Server "{args.name}" removed from {args.scope} settings.')
    return 0


def describe(config: Any) -> str:
    from gemini_tui.core.mcp.connection import transport_of

    transport = transport_of(config)
    where = config.http_url or config.url if transport != "stdio" else " ".join([config.command or "", *config.args])
    return f"{where} ({transport})"


async def _statuses(root: Path) -> list[tuple[str, str, bool, str]]:
    from gemini_tui.core.mcp import McpManager
    from gemini_tui.core.tooling.registry import ToolRegistry

    settings = load_settings(root)
    if not settings.mcp_servers:
        return []
    manager = McpManager(settings.mcp_servers, ToolRegistry(), root=root, connect_timeout_s=10)
    try:
        await manager.wait_ready(15)
    finally:
        await manager.close()
    from gemini_tui.core.ground.events import McpServerState

    return [(alias, describe(config), manager.connections[alias].state is not McpServerState.failed,
             manager.status(alias).protocol) for alias, config in settings.mcp_servers.items()]


def list_servers(root: Path) -> int:
    found = asyncio.run(_statuses(root))
    if not found:
        print("No MCP servers configured.")
        return 0
    print("Configured MCP servers:\n")
    for alias, where, ok, protocol in found:
        speaks = f", protocol {protocol}" if protocol else ""
        print(f"{'✓' if ok else '✗'} {alias}: {where} - {'Connected' if ok else 'Disconnected'}{speaks}")
    return 0


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    root = Path.cwd().resolve()
    try:
        match args.action:
            case "add":
                return add(args, root)
            case "remove":
                return remove(args, root)
            case _:
                return list_servers(root)
    except SettingsFileError as exc:
        print(f"gemini-tui mcp: {exc}", file=sys.stderr)
        return 1
