"""`gemini-tui serve [--host H] [--port P] [app options]`: parse, check, print the URL, serve (cli front end)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
# the app's options that make no sense for a page: they run headless, list and exit, or share one saved session
NOT_FOR_PAGES = {"prompt": "-p/--prompt", "list_extensions": "-l/--list-extensions",
                 "list_sessions": "--list-sessions", "delete_session": "--delete-session", "resume": "-r/--resume"}


def build_serve_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gemini-tui serve",
        description="Serve the full-screen app to a web browser: each page gets its own app and session, ended "
                    "(with every process it started) when the page closes.",
        epilog="Every other option is passed on to each page's app: -m/--model, -s/--sandbox, --approval-mode, "
               "-y/--yolo, --include-directories, -e/--extensions, --trust, --allowed-mcp-server-names, -d/--debug, "
               "-i/--prompt-interactive. Whoever opens a page can run commands as you: on a --host other than "
               "loopback the page needs the token printed at start.",
    )
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help=f"address to listen on (default {DEFAULT_HOST}, this machine only); any other address "
                             "requires the printed token in the URL")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0 picks one)")
    return parser


def app_command(app_arguments: list[str]) -> list[str]:
    """How each page's app is started: this interpreter, this package, the passed-on options."""
    return [sys.executable, "-m", "gemini_tui", *app_arguments]


def main(arguments: list[str], app_parser: argparse.ArgumentParser) -> int:
    """`app_parser` is the app's own command line, which checks the passed-on options before anything starts."""
    parser = build_serve_parser()
    serve, rest = parser.parse_known_args(arguments)
    app_args = app_parser.parse_args(rest)
    for name, flag in NOT_FOR_PAGES.items():
        if getattr(app_args, name, None):
            parser.error(f"{flag} cannot be used with serve: each page starts its own interactive session")
    if getattr(app_args, "output_format", "text") != "text":
        parser.error("-o/--output-format is for headless runs; serve starts interactive sessions")
    if not 0 <= serve.port <= 65535:
        parser.error(f"--port {serve.port} is not a port")

    from gemini_tui.cli.web.access import Access
    from gemini_tui.cli.web.server import WebServer

    access = Access(serve.host)
    server = WebServer(app_command(rest), host=serve.host, port=serve.port, cwd=Path.cwd(), access=access)
    server.initialize_logging()
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)  # not a line per page load and font

    def announce(url: str) -> None:
        print(f"gemini-tui: serving {Path.cwd()} at {url}", flush=True)
        if access.needs_token:
            print("gemini-tui: anyone who opens that URL (its token included) can run commands as you on this "
                  "machine; without the token a page is refused.", flush=True)
        print("gemini-tui: Ctrl+C stops the server and every page's session.", flush=True)

    try:
        asyncio.run(server.run(announce))
    except OSError as exc:  # the port is taken, the address is not ours
        print(f"gemini-tui: cannot serve on {serve.host}:{serve.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0
