"""Where Gemini CLI 0.61 from npm is installed for side-by-side tests (`make node-deps` puts it in .cache/node)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GEMINI_CLI_VERSION = "0.61.0"
# Gemini CLI starts itself a second time, in a child with a larger heap, unless told not to (it tells its child the
# same way): a side-by-side run needs neither the heap nor the second start (~1.5 s of CPU each)
WITHOUT_RELAUNCH = {"GEMINI_CLI_NO_RELAUNCH": "true"}


def gemini_cli_package() -> Path:
    """The installed @google/gemini-cli package folder; GEMINI_CLI_PACKAGE overrides (a shared cache)."""
    override = os.environ.get("GEMINI_CLI_PACKAGE")
    for candidate in ([Path(override)] if override else []) + [
            ROOT / ".cache" / "node" / "node_modules" / "@google" / "gemini-cli"]:
        if (candidate / "package.json").is_file():
            return candidate
    raise FileNotFoundError("Gemini CLI is not installed: run `make node-deps`")


def gemini_cli_bundle() -> Path:
    return gemini_cli_package() / "bundle"
