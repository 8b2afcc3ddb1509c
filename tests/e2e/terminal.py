"""A real terminal for end-to-end tests: `gemini-tui` in a detached tmux session, typed into and read back."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.fakes.gemini_server import FakeGeminiServer

REPO = Path(__file__).resolve().parents[2]
GEMINI_TUI = Path(sys.executable).parent / "gemini-tui"  # the venv running the tests


def app_command() -> list[str]:
    """The argv prefix that runs the app in a pane: a warm start (`tests/fakes/warm_start.py`: forked from a
    process that has imported the app, with the pane as its controlling terminal), or the plain `python -m` when
    warm starts are off. Tests of start-up itself (what a first frame waits for, keys typed before it) run the
    installed script, GEMINI_TUI."""
    from tests.fakes import warm_start

    return warm_start.command(app=True)


LEAKY_VARIABLES = ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT",
                   "GOOGLE_CLOUD_LOCATION", "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_GEMINI_BASE_URL", "GEMINI_MODEL",
                   "GEMINI_SANDBOX", "LINES", "COLUMNS")


def require_tmux() -> None:
    # no skip: an end-to-end test that cannot run is a failure to see, not a pass
    assert shutil.which("tmux"), "these tests need tmux (apt-get install tmux)"


class Terminal:
    """One tmux session running one command; `close()` (or the context manager) always kills it."""

    def __init__(self, command: list[str], cwd: Path, env: dict[str, str], width: int = 120,
                 height: int = 40) -> None:
        require_tmux()
        self.name = f"gtui-{uuid.uuid4().hex[:8]}"
        full_env = {**os.environ, **env, "TERM": "xterm-256color"}
        exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
        # a tmux server keeps the environment of whichever test started it: what selects the model or the sandbox
        # is unset unless this test sets it, so a key left by an earlier test cannot leak in
        unset = " ".join(f"-u {name}" for name in LEAKY_VARIABLES if name not in env)
        script = f"cd {shlex.quote(str(cwd))} && env {unset} {exports} {shlex.join(command)}"
        for attempt in range(5):
            # a tmux server still ending (its last session just closed) refuses: "server exited unexpectedly"
            started = subprocess.run(["tmux", "new-session", "-d", "-s", self.name, "-x", str(width), "-y",
                                      str(height), script], env=full_env, capture_output=True, text=True)
            if started.returncode == 0:
                break
            time.sleep(0.2 * (attempt + 1))
        else:
            raise RuntimeError(f"tmux new-session failed: {started.stderr.strip()}")

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)

    def screen(self) -> str:
        result = subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True)
        return result.stdout

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)

    def type(self, text: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, "-l", text], check=True)

    def wait_for(self, predicate: Callable[[str], object] | str, timeout: float = 30.0) -> str:
        """Polls the screen until `predicate` (or the text) holds; raises with the last screen on timeout."""
        check = (lambda screen: predicate in screen) if isinstance(predicate, str) else predicate
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {predicate!r}; screen was:\n{screen}")


def wait_until(predicate: Callable[[], object], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.05)


def fake_gemini_env(server: FakeGeminiServer, home: Path) -> dict[str, str]:
    """The environment that points `gemini-tui` at the fake Gemini server, with `home` as its home."""
    return {"GEMINI_API_KEY": "test", "GOOGLE_GEMINI_BASE_URL": server.base_url, "HOME": str(home),
            "GEMINI_CLI_HOME": str(home)}


def start_app(root: Path, tmp_path: Path, server: FakeGeminiServer, width: int = 120, height: int = 40,
              keep_shell: bool = False) -> Terminal:
    """`gemini-tui` in `root` against `server`, once its prompt is up. With `keep_shell` the pane stays after the
    app exits (printing `EXITED-<code>`), so anything printed on the way out can be read."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    app = app_command()
    command = ["sh", "-c", f"{shlex.join(app)}; echo EXITED-$?; sleep 30"] if keep_shell else app
    terminal = Terminal(command, root, fake_gemini_env(server, home), width, height)
    try:
        terminal.wait_for("Ask anything")
    except BaseException:
        terminal.close()
        raise
    return terminal


def send(terminal: Terminal, prompt: str) -> None:
    terminal.type(prompt)
    terminal.keys("Enter")
