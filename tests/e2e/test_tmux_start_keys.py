"""Keys typed the instant the app is launched, in a real terminal (tmux): they act as they would a second later
(Shift+Tab and Ctrl+Y change the approval mode, text lands in the prompt, Enter sends it), whenever in the start
they come: before the interpreter runs, during the imports, before the first frame, before the session is built."""

from __future__ import annotations

import random
import re
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gemini_tui.core.approvals.policy import ApprovalMode
from tests.e2e.terminal import GEMINI_TUI, Terminal, fake_gemini_env
from tests.fakes.gemini_server import FakeGeminiServer, reply, text

DELAYS = (0.0, 0.05, 0.15, 0.3, 0.5)  # seconds after launch: from before Python runs to about the first frame


@pytest.fixture
def server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as fake:
        yield fake


@dataclass(frozen=True)
class Case:
    delay: float
    keys: tuple[str, ...]  # tmux key names; "text:" types the rest literally

    def expected_mode(self) -> ApprovalMode:
        mode = ApprovalMode.default
        for key in self.keys:
            if key == "BTab":
                mode = mode.next()
            elif key == "C-y":
                mode = ApprovalMode.default if mode is ApprovalMode.yolo else ApprovalMode.yolo
        return mode

    def typed(self) -> str:
        return "".join(key.removeprefix("text:") for key in self.keys if key.startswith("text:"))

    def sends(self) -> bool:
        return "Enter" in self.keys


def cases(count: int, seed: int) -> list[Case]:
    rng = random.Random(seed)
    made = []
    for index in range(count):
        keys: list[str] = [rng.choice(["BTab", "C-y"]) for _ in range(rng.randint(0, 2))]
        word = f"early{index}{rng.choice('xyz')}"
        keys.append(f"text:{word}")
        keys.extend(rng.choice([["BTab"], [], ["Enter"], ["BTab", "Enter"]]))
        made.append(Case(DELAYS[index % len(DELAYS)], tuple(keys)))
    return made


def press(terminal: Terminal, keys: tuple[str, ...]) -> None:
    for key in keys:
        if key.startswith("text:"):
            terminal.type(key.removeprefix("text:"))
        else:
            terminal.keys(key)


@pytest.mark.parametrize("case", cases(5, seed=22), ids=lambda c: f"{c.delay}s-{'+'.join(c.keys)}")
def test_keys_typed_at_launch_act_as_later(case: Case, tmp_path: Path, root: Path,
                                           server: FakeGeminiServer) -> None:
    server.script(reply(text("EARLY-ANSWER")))
    home = tmp_path / "home"
    home.mkdir()
    with Terminal([str(GEMINI_TUI)], root, fake_gemini_env(server, home)) as terminal:
        time.sleep(case.delay)
        press(terminal, case.keys)
        mode = case.expected_mode()
        screen = terminal.wait_for(lambda s: f"mode: {mode}" in s.splitlines()[0] and "tokens" in s.splitlines()[0])
        if case.sends():
            screen = terminal.wait_for("EARLY-ANSWER")
            assert case.typed() in server.requests[0].contents[-1]["parts"][0]["text"]
        else:
            screen = terminal.wait_for(lambda s: re.search(rf"│ {case.typed()}\s+│", s))
            time.sleep(0.3)
            assert not server.requests
        assert f"mode: {mode}" in screen.splitlines()[0], screen


def test_the_terminal_gets_its_own_settings_back(tmp_path: Path, root: Path, server: FakeGeminiServer) -> None:
    """The terminal is put to raw input before the app's imports: at the end its line discipline is back (lines,
    echo, Ctrl+C as a signal, Enter as a newline)."""
    home = tmp_path / "home"
    home.mkdir()
    command = ["sh", "-c", f"{GEMINI_TUI}; echo EXITED-$?; stty -a | tr ' ;' '\\n\\n' | grep -E -x -- "
                           "'-?(icanon|echo|isig|icrnl)' | tr '\\n' ' '; echo; sleep 30"]
    with Terminal(command, root, fake_gemini_env(server, home)) as terminal:
        terminal.type("typed at once")
        terminal.wait_for(lambda s: re.search(r"│ typed at once\s+│", s))  # in the prompt (not the shell's echo)
        terminal.keys("C-q")
        # the settings `stty` printed after the exit (a line of their own, which may come a moment after EXITED)
        screen = terminal.wait_for(lambda s: "EXITED" in s and any("icanon" in line for line in s.splitlines()))
        flags = next(line for line in screen.splitlines() if "icanon" in line).split()
        assert sorted(flags) == ["echo", "icanon", "icrnl", "isig"], screen


def wait_until_raw(terminal: Terminal) -> None:
    """Until the program has switched its terminal to raw input (its first act, before the app's imports)."""
    tty = subprocess.run(["tmux", "display", "-p", "-t", terminal.name, "#{pane_tty}"], capture_output=True,
                         text=True, check=True).stdout.strip()
    deadline = time.monotonic() + 10
    while "-icanon" not in subprocess.run(["stty", "-F", tty, "-a"], capture_output=True, text=True).stdout.split():
        assert time.monotonic() < deadline, "the terminal never went raw"
        time.sleep(0.005)


def test_ctrl_c_at_once_is_the_apps_key(tmp_path: Path, root: Path, server: FakeGeminiServer) -> None:
    """Ctrl+C typed as the program starts clears the draft as it would a second later (it was a signal that ended
    the start with a traceback), and a second one right after arms quitting without ending anything."""
    server.script(reply(text("KEPT-ANSWER")))
    home = tmp_path / "home"
    home.mkdir()
    command = ["sh", "-c", f"{GEMINI_TUI}; echo EXITED-$?; sleep 30"]
    with Terminal(command, root, fake_gemini_env(server, home)) as terminal:
        wait_until_raw(terminal)
        press(terminal, ("text:draft", "C-c", "text:kept", "Enter", "C-c"))
        screen = terminal.wait_for("KEPT-ANSWER")
        assert "EXITED" not in screen and "Traceback" not in screen
        sent = server.requests[0].contents[-1]["parts"][0]["text"]
        assert "kept" in sent and "draft" not in sent
