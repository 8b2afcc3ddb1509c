"""Fixtures for running gemini-tui under Harbor's own code (harbor 0.26.0, in the venv `make test-harbor` builds):
a task's world in temporary folders (workspace, home, Harbor's logs folder), the fake Gemini server, and the local
environment Harbor's agents run their commands in. gemini-tui itself is the program installed in the project's
.venv (GEMINI_TUI_VENV), as it would be in a task's container."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakes.gemini_server import FakeGeminiServer
from tests.harbor.local_environment import LocalEnvironment

REPO = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("GEMINI_TUI_VENV", REPO / ".venv"))


@dataclass
class World:
    """One task's folders and the environment Harbor's agent runs in."""

    root: Path  # the task's workspace (the container's working directory)
    home: Path
    logs: Path  # Harbor's logs folder for the agent (/logs/agent in the container)
    environment: LocalEnvironment


def gemini_tui_program() -> Path:
    program = VENV / "bin" / "gemini-tui"
    if not program.is_file():
        raise FileNotFoundError(f"{program} is missing: `make test-harbor` installs the project's .venv first")
    return program


@pytest.fixture
def gemini_server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as server:
        yield server


def make_world(base: Path, server: FakeGeminiServer, **env: str) -> World:
    root, home, logs, installed = base / "work", base / "home", base / "logs" / "agent", base / "installed-agent"
    for folder in (root, home, logs, installed):
        folder.mkdir(parents=True)
    mapping = {"/installed-agent": installed, "/logs/agent": logs, "/logs": base / "logs",
               # Harbor's ACP runner venv in the container is this venv here (harbor, agent-client-protocol)
               "/opt/harbor-acp-venv": Path(sys.prefix)}
    container_env = {"PATH": f"{gemini_tui_program().parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
                     "HOME": str(home), "GEMINI_CLI_HOME": str(home), "LANG": "C.UTF-8",
                     "GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": server.base_url, **env}
    return World(root, home, logs, LocalEnvironment(root, mapping, container_env))


@pytest.fixture
def world(tmp_path: Path, gemini_server: FakeGeminiServer) -> World:
    return make_world(tmp_path, gemini_server)
