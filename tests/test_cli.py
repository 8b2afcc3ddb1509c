"""The console script answers --version and --help without starting anything."""

import subprocess
import sys

from gemini_tui.cli import __version__


def test_version() -> None:
    out = subprocess.run([sys.executable, "-m", "gemini_tui", "--version"], capture_output=True, text=True)
    assert out.returncode == 0
    assert out.stdout.strip() == f"gemini-tui {__version__}"


def test_help() -> None:
    out = subprocess.run([sys.executable, "-m", "gemini_tui", "--help"], capture_output=True, text=True)
    assert out.returncode == 0
    assert "usage: gemini-tui" in out.stdout
