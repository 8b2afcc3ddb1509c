"""Problems found reading the GEMINI.md files are said at start, once: in the chat as the app opens (in a real
terminal, tmux), and on stderr before the answer of a headless run; not mid-way through the first turn."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.e2e.terminal import GEMINI_TUI, Terminal, fake_gemini_env, send
from tests.fakes import warm_start
from tests.fakes.gemini_server import FakeGeminiServer, reply, text


def missing(root: Path) -> str:
    (root / "GEMINI.md").write_text("Rules.\n@./docs/gone.md\n")
    return "gone.md"


def outside(root: Path) -> str:
    (root.parent / "secret-notes.md").write_text("secret\n")
    (root / "GEMINI.md").write_text("Rules.\n@../secret-notes.md\n")
    return "secret-notes.md"


def cycle(root: Path) -> str:
    (root / "GEMINI.md").write_text("Rules.\n@./loop-a.md\n")
    (root / "loop-a.md").write_text("A\n@./loop-b.md\n")
    (root / "loop-b.md").write_text("B\n@./loop-a.md\n")
    return "circular import"


def linked_out(root: Path) -> str:
    (root.parent / "elsewhere.md").write_text("not the project's\n")
    (root / "sub").mkdir()
    (root / "sub" / "GEMINI.md").symlink_to(root.parent / "elsewhere.md")
    return "outside the project"


BROKEN: dict[str, Callable[[Path], str]] = {"missing": missing, "outside": outside, "cycle": cycle,
                                           "linked-out": linked_out}


@pytest.fixture
def server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as fake:
        yield fake


@pytest.mark.parametrize("kind", ["missing", "cycle"])
def test_the_app_says_it_as_it_opens_once(kind: str, root: Path, tmp_path: Path, server: FakeGeminiServer) -> None:
    (root / ".git").mkdir()  # the project's top: nothing above it is read
    words = BROKEN[kind](root)
    home = tmp_path / "home"
    home.mkdir()
    server.script(reply(text("FIRST-ANSWER")))
    with Terminal([str(GEMINI_TUI)], root, fake_gemini_env(server, home)) as terminal:
        screen = terminal.wait_for(lambda s: "GEMINI.md import" in s and "tokens" in s.splitlines()[0])
        assert words in screen and not server.requests  # before any prompt
        send(terminal, "hello")
        screen = terminal.wait_for("FIRST-ANSWER")
        assert screen.count("GEMINI.md import") == 1, screen


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_headless_run_says_it_on_stderr_before_the_answer(kind: str, root: Path, tmp_path: Path,
                                                             server: FakeGeminiServer) -> None:
    (root / ".git").mkdir()
    words = BROKEN[kind](root)
    home = tmp_path / "home"
    home.mkdir()
    server.script(reply(text("THE-ANSWER")))
    # one pipe for both streams: what was written first comes first
    done = subprocess.run([*warm_start.command(os.environ), "-p", "hi"], cwd=root, stdin=subprocess.DEVNULL,
                          env={**os.environ, **fake_gemini_env(server, home)}, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=60)
    assert done.returncode == 0, done.stdout
    output = done.stdout
    assert output.count("GEMINI.md import") == 1 and words in output, output
    assert output.index("GEMINI.md import") < output.index("THE-ANSWER"), output
