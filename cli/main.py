"""`gemini-tui`: parse the command line, then run headless (-p) or start the app. Heavy imports stay lazy."""

from __future__ import annotations

import argparse
import sys

from cli import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gemini-tui",
        description="A full-screen terminal agent for Gemini: chat, live tool calls, diff review, tool history.",
    )
    parser.add_argument("--version", action="version", version=f"gemini-tui {__version__}")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    parser.parse_args(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
