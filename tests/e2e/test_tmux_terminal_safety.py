"""In a real terminal (tmux): `!printf` of a title sequence, and a file full of escapes shown in the diff review,
do not change the window title. A control run first shows that the same bytes do set it when printed raw."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from gemini_tui.app.typing_guard import GRACE_PERIOD
from tests.e2e.terminal import Terminal, app_command, fake_gemini_env, wait_until
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

GRACE = GRACE_PERIOD + 0.3  # past the quiet spell after which a confirmation takes keys
TITLE = "\x1b]0;pwned\x07"


def pane_title(terminal: Terminal) -> str:
    return subprocess.run(["tmux", "display", "-p", "-t", terminal.name, "#{pane_title}"], capture_output=True,
                          text=True, check=True).stdout.strip()


def test_the_title_sequence_works_when_printed_raw(tmp_path: Path) -> None:
    with Terminal(["bash", "-c", f"printf '{TITLE}'; sleep 30"], tmp_path, {}) as terminal:
        wait_until(lambda: pane_title(terminal) == "pwned", timeout=10)


def test_printf_and_a_hostile_diff_leave_the_title_alone(root: Path, tmp_path: Path) -> None:
    target = root / "notes.txt"
    target.write_text(f"first line\n{TITLE}title in a file\n\x1b]52;c;cHduZWQ=\x07clipboard\n\x1b[2Jclear\n")
    home = tmp_path / "home"
    home.mkdir()
    with FakeGeminiServer() as server:
        server.script(
            reply(call("replace", file_path=str(target), old_string="first line",
                       new_string=f"first {TITLE}line\x1b]2;pwned too\x1b\\")),
            reply(text(f"Edited. {TITLE}\x1b[31mdone")),
        )
        with Terminal(app_command(), root, fake_gemini_env(server, home)) as terminal:
            terminal.wait_for("Ask anything")
            assert "pwned" not in pane_title(terminal)  # the app may set its own title; never the hostile one
            terminal.type("!printf '\\e]0;pwned\\a'; echo printed")
            terminal.keys("Enter")
            terminal.wait_for("Confirm")
            time.sleep(GRACE)
            terminal.keys("y")
            terminal.wait_for("printed")
            time.sleep(0.5)
            assert "pwned" not in pane_title(terminal)
            terminal.type("edit the notes")
            terminal.keys("Enter")
            terminal.wait_for("Confirm Edit")
            time.sleep(0.5)
            assert "pwned" not in pane_title(terminal)
            assert "pwned" not in terminal.screen()
            time.sleep(GRACE)
            terminal.keys("y")
            terminal.wait_for("Edited.")
            time.sleep(0.5)
            assert "pwned" not in pane_title(terminal)


def test_quitting_the_app_ends_a_running_command_and_its_jobs(root: Path, tmp_path: Path) -> None:
    """A command still running (with a background job) when the user quits: nothing of it is left."""
    from tests.tools.test_search_containment import processes_in

    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "GEMINI_CLI_HOME": str(home), "GEMINI_API_KEY": ""}
    with Terminal([*app_command(), "-m", "offline"], root, env) as terminal:
        terminal.wait_for("Ask anything")
        terminal.type("!sleep 4243 & sleep 4242")
        terminal.keys("Enter")
        terminal.wait_for("Confirm")
        time.sleep(GRACE)
        terminal.keys("y")
        wait_until(lambda: len(processes_in(root)) >= 2, timeout=10)
        terminal.keys("C-q")
        wait_until(lambda: not processes_in(root), timeout=10)
