"""Started under Textual's web driver (as `gemini-tui serve` starts each page's app), `gemini-tui` draws the app
instead of reading a prompt from its stdin, and leaves when the page's quit message comes."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gemini_tui.cli.web.command import app_command, build_serve_parser

WEB_DRIVER = "textual.drivers.web_driver:WebDriver"


def _packet(kind: bytes, payload: bytes) -> bytes:
    return kind + len(payload).to_bytes(4, "big") + payload


def test_the_app_starts_under_the_web_driver_and_quits_when_asked(root: Path, home: Path) -> None:
    env = {**os.environ, "TEXTUAL_DRIVER": WEB_DRIVER, "HOME": str(home), "GEMINI_CLI_HOME": str(home),
           "COLUMNS": "100", "ROWS": "30"}
    app = subprocess.Popen(app_command(["-m", "offline"]), cwd=root, env=env, stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert app.stdin is not None and app.stdout is not None
    try:
        ready, _, _ = select.select([app.stdout], [], [], 30)
        assert ready, "no output: the app waits (on stdin?) instead of starting"
        assert app.stdout.readline() == b"__GANGLION__\n"  # Textual's web driver says hello first
        drawn = b""
        deadline = time.monotonic() + 30
        while b"offline" not in drawn and time.monotonic() < deadline:  # the status bar names the model
            drawn += os.read(app.stdout.fileno(), 65536)
        assert b"offline" in drawn
        assert b"\x1b[22;0t" not in drawn  # no window title stack in a page
        app.stdin.write(_packet(b"M", json.dumps({"type": "quit"}).encode()))
        app.stdin.flush()
        assert app.wait(20) == 0
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()


@pytest.mark.parametrize("options", [["-p", "hi"], ["--resume"], ["--list-sessions"], ["-o", "json"],
                                     ["--no-such-flag"], ["--port", "70000"]])
def test_serve_refuses_options_that_make_no_sense_for_pages(options: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "gemini_tui", "serve", *options], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2, done.stderr
    assert "error" in done.stderr


def test_serve_listens_on_loopback_unless_told() -> None:
    args = build_serve_parser().parse_args([])
    assert args.host == "127.0.0.1"
