"""The welcome view fits the chat area at every terminal size from 30x10 to 200x50, at start and after a resize,
in a real terminal (tmux): its box (or, when even a tight box is too tall, its unboxed text) is whole on screen,
from its first line (`gemini-tui`) to its box's bottom (or its last line, `F1 keys`), with or without an API key."""

from __future__ import annotations

import random
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.terminal import Terminal, app_command, fake_gemini_env
from tests.fakes.gemini_server import FakeGeminiServer

SMALLEST, LARGEST = (30, 10), (200, 50)


def sizes(count: int, seed: int) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    return [(rng.randint(SMALLEST[0], LARGEST[0]), rng.randint(SMALLEST[1], LARGEST[1])) for _ in range(count)]


def welcome_is_whole(screen: str) -> str | None:
    """None when the welcome is whole in the chat area (between the status line and the prompt's box), else why
    not."""
    lines = screen.splitlines()
    prompt_top = max((i for i, line in enumerate(lines) if line.startswith("╭")), default=len(lines))
    chat = lines[1:prompt_top]
    title = next((i for i, line in enumerate(chat) if "gemini-tui" in line), None)
    if title is None:
        return "its first line is not in view"
    above = [i for i in range(title) if chat[i].lstrip().startswith("╭")]
    if above:  # boxed: the box's bottom is in the chat area too, and its last line just above it
        column = chat[above[-1]].index("╭")
        bottom = next((i for i in range(title, len(chat)) if len(chat[i]) > column and chat[i][column] == "╰"), None)
        return "its box is cut" if bottom is None else None  # the box holds every line
    if "F1" not in " ".join(chat[title:title + 8]):
        return "its last line is not in view"
    return None


def resize(terminal: Terminal, width: int, height: int) -> None:
    subprocess.run(["tmux", "resize-window", "-t", terminal.name, "-x", str(width), "-y", str(height)], check=True)


@pytest.fixture
def server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as fake:
        yield fake


def environment(server: FakeGeminiServer, home: Path, offline: bool) -> dict[str, str]:
    home.mkdir(exist_ok=True)
    if offline:  # no key: the offline demo model, whose welcome is the tallest
        return {"HOME": str(home), "GEMINI_CLI_HOME": str(home)}
    return fake_gemini_env(server, home)


@pytest.mark.parametrize("size", [(80, 24), SMALLEST, LARGEST, *sizes(2, seed=21)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("offline", [True, False], ids=["offline", "gemini"])
def test_the_welcome_fits_at_start(size: tuple[int, int], offline: bool, root: Path, tmp_path: Path,
                                   server: FakeGeminiServer) -> None:
    width, height = size
    with Terminal(app_command(), root, environment(server, tmp_path / "home", offline), width,
                  height) as terminal:
        screen = terminal.wait_for(lambda s: "gemini-tui" in s and "Ask anything" in s)
        time.sleep(0.5)  # the startup notices are in (the welcome's top stays in view)
        screen = terminal.screen()
        assert welcome_is_whole(screen) is None, f"{welcome_is_whole(screen)}:\n{screen}"


@pytest.mark.parametrize("offline", [True, False], ids=["offline", "gemini"])
def test_the_welcome_fits_after_every_resize(offline: bool, root: Path, tmp_path: Path,
                                             server: FakeGeminiServer) -> None:
    with Terminal(app_command(), root, environment(server, tmp_path / "home", offline), 120, 40) as terminal:
        terminal.wait_for(lambda s: "gemini-tui" in s and "Ask anything" in s)
        for width, height in [*sizes(6, seed=offline), SMALLEST, (80, 24), LARGEST]:
            resize(terminal, width, height)
            deadline = time.monotonic() + 5
            while True:
                screen = terminal.screen()
                lines = screen.splitlines()
                why = welcome_is_whole(screen) if len(lines) == height else "not redrawn yet"
                if why is None or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            assert why is None, f"{width}x{height}: {why}:\n{screen}"
