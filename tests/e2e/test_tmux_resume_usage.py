"""A resumed conversation shows its own tokens and context share on the status line, in a real terminal (tmux):
`--resume`, the `/resume` picker and `/chat resume` alike. The share is what the model counted at the saved
session's last request when its file records it, else an estimate of the history (a file of an older build)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.terminal import Terminal, app_command, fake_gemini_env, send
from tests.fakes import warm_start
from tests.fakes.gemini_server import FakeGeminiServer, reply, text

WINDOW = 1_048_576  # gemini-2.5-pro's context window
COUNTED = {"promptTokenCount": 400_000, "candidatesTokenCount": 2_000, "totalTokenCount": 402_000}
LONG_PROMPT = "beta " + "lorem ipsum " * 20_000  # 240k characters: about 60k tokens by the estimate


@pytest.fixture
def server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as fake:
        yield fake


def headless(root: Path, env: dict[str, str], prompt: str) -> None:
    """One saved session, made as a user would: `gemini-tui -p` (the prompt on stdin)."""
    done = subprocess.run([*warm_start.command(os.environ), "-p", "go on"], cwd=root, env={**os.environ, **env},
                          input=prompt, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def session_files(home: Path) -> list[Path]:
    return sorted((home / ".gemini").rglob("session-*.jsonl"), key=lambda p: p.stat().st_mtime)


def status(screen: str) -> str:
    return screen.splitlines()[0]


def shows(tokens: str, percent: int) -> object:
    return lambda screen: re.search(rf"{re.escape(tokens)} tokens\s+│\s+context {percent}%", status(screen))


def test_resumed_sessions_show_their_tokens_and_context(root: Path, tmp_path: Path,
                                                        server: FakeGeminiServer) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = fake_gemini_env(server, home)
    # an older build's session (no usage records): its share is estimated from its history
    server.script(reply(text("Long read.")))
    headless(root, env, LONG_PROMPT)
    older = session_files(home)[-1]
    lines = [line for line in older.read_text().splitlines() if '"kind":"usage"' not in line.replace(" ", "")]
    older.write_text("\n".join(lines) + "\n")
    # the newest session: the model counted 402k tokens at its last request
    server.script(reply(text("Counted."), usage=COUNTED))
    headless(root, env, "alpha")
    counted_share = round(100 * (400_000 + 2_000) / WINDOW)
    estimated_share = round(100 * (len(LONG_PROMPT) + len("go on") + len("Long read.")) / 4 / WINDOW)
    assert counted_share != estimated_share and estimated_share > 0

    with Terminal([*app_command(), "--resume"], root, env) as terminal:
        terminal.wait_for(shows("402.0k", counted_share))  # --resume: the latest, as it was counted
        send(terminal, "/chat save counted")
        terminal.wait_for("counted")
        send(terminal, "/resume")
        terminal.wait_for("Resume a session")
        terminal.keys("Enter")  # the only other one: the older build's
        terminal.wait_for(shows("0", estimated_share))
        send(terminal, "/chat resume counted")
        terminal.wait_for(shows("402.0k", counted_share))
        server.script(reply(text("More."), usage={"promptTokenCount": 420_000, "candidatesTokenCount": 1_000,
                                                  "totalTokenCount": 421_000}))
        send(terminal, "and more")
        terminal.wait_for("More.")
        terminal.wait_for(lambda s: "823.0k tokens" in status(s))  # the count goes on from the resumed one's


def test_a_headless_resume_reports_only_its_own_tokens(root: Path, tmp_path: Path, server: FakeGeminiServer) -> None:
    """`-o json` stats stay the run's own, as Gemini CLI's: only the status line counts the resumed ones."""
    home = tmp_path / "home"
    home.mkdir()
    env = fake_gemini_env(server, home)
    server.script(reply(text("Counted."), usage=COUNTED))
    headless(root, env, "alpha")
    server.script(reply(text("Again."), usage={"promptTokenCount": 10, "candidatesTokenCount": 2,
                                               "totalTokenCount": 12}))
    done = subprocess.run([*warm_start.command(os.environ), "--resume", "-p", "again", "-o", "json"], cwd=root,
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    stats = json.loads(done.stdout)["stats"]
    assert "402" not in json.dumps(stats) and "12" in json.dumps(stats)
