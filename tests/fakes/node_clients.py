"""Where the npm programs of the side-by-side tests are (`make node-deps` installs them into .cache/node):
Gemini CLI 0.61 and the ACP client acpx 0.19. NODE_PACKAGES_DIR overrides the node_modules folder."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def node_modules() -> Path:
    override = os.environ.get("NODE_PACKAGES_DIR")
    return Path(override) if override else ROOT / ".cache" / "node" / "node_modules"


def node_program(package: str, entry: str) -> list[str]:
    """`node <package>/<entry>`; fails loudly when `make node-deps` has not run (a test never skips for it)."""
    path = node_modules() / package / entry
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: run `make node-deps`")
    return ["node", str(path)]


def acpx() -> list[str]:
    return node_program("acpx", "dist/cli.js")


def gemini_cli() -> list[str]:
    return node_program("@google/gemini-cli", "bundle/gemini.js")
