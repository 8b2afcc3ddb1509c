"""Where tracebacks go: nowhere visible by default, a log file with `--debug` (and error messages name it).

Python's fallback handler prints a logged exception's traceback to stderr, over the app's screen or into a
headless run's output. `quiet()` gives the root logger a handler that drops records; `to_file()` writes them."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

_path: Path | None = None


def quiet() -> None:
    """No log output anywhere (the default): errors reach the user as messages, not tracebacks."""
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(logging.NullHandler())


def to_file(directory: Path) -> Path:
    """Debug logging of everything into a new file under `directory`; returns its path."""
    global _path
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"gemini-tui-debug-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
    # a lone surrogate in a logged message is written as its escape, never an error inside logging
    handler = logging.FileHandler(path, encoding="utf-8", errors="backslashreplace")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        if isinstance(old, logging.NullHandler):
            root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    for noisy in ("httpcore", "httpx", "httpcore2", "httpx2", "asyncio", "markdown_it"):
        logging.getLogger(noisy).setLevel(logging.INFO)
    _path = path
    return path


def log_path() -> Path | None:
    return _path


def where_details() -> str:
    """The end of an error message: where its traceback is, or how to get one."""
    if _path is not None:
        return f" (traceback in {_path})"
    return " (run with --debug to write the traceback to a log file)"
