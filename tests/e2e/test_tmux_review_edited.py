"""End to end in a real terminal (tmux): a proposal the user edits in $EDITOR from the review is what the chat row,
the history and its details, and the tool result the model gets show, not the model's proposal; for `replace`
and `write_file`, each with a generated edit of the proposal."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import pytest

from gemini_tui.app.typing_guard import GRACE_PERIOD
from tests.e2e.terminal import Terminal, app_command, fake_gemini_env, send
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

GRACE = GRACE_PERIOD + 0.3
EDITOR = """import sys
old, new, path = sys.argv[1:4]
text = open(path).read()
open(path, "w").write(text.replace(old, new))
"""


def flat(screen: str) -> str:
    return " ".join(screen.split()).replace("+ ", "+")


@pytest.mark.parametrize("tool", ["replace", "write_file"])
def test_the_users_version_is_what_is_shown_and_told(root: Path, tmp_path: Path, tool: str) -> None:
    rng = random.Random(f"17-{tool}")
    mine = f"name = mine{rng.randint(100, 999)}"  # what the user's editor writes instead of the proposal
    target = root / "config.ini"
    target.write_text("[main]\nname = old\nport = 1\n")
    editor = tmp_path / "editor.py"
    editor.write_text(EDITOR)
    if tool == "replace":
        proposal = call("replace", file_path=str(target), old_string="name = old", new_string="name = new")
    else:
        proposal = call("write_file", file_path=str(target), content="[main]\nname = new\nport = 1\n")
    home = tmp_path / "home"
    home.mkdir()
    with FakeGeminiServer() as server:
        server.script(reply(proposal), reply(text("Noted your version.")))
        env = {**fake_gemini_env(server, home), "VISUAL": f"{sys.executable} {editor} 'name = new' '{mine}'"}
        # tall enough that the details show the written diff below the arguments, whatever the length of the
        # temporary folder's path (it wraps twice in them; under xdist it is longer)
        with Terminal(app_command(), root, env, height=60) as terminal:
            terminal.wait_for("Ask anything")
            send(terminal, "rename it")
            terminal.wait_for("Confirm")
            time.sleep(GRACE)
            terminal.keys("C-e")  # the proposal in $VISUAL; the edited version is reviewed, then allowed
            terminal.wait_for("Your edited version")
            time.sleep(GRACE)
            terminal.keys("y")
            screen = terminal.wait_for("Noted your version.")
            row = next(line for line in screen.splitlines() if "✓" in line)
            assert "(your edit)" in row, row
            if tool == "replace":
                assert mine in row and "name = new" not in row, row
            terminal.keys("C-b")  # the history: the same description, and its details say what was written
            screen = terminal.wait_for("Tool history")
            assert "(your edit)" in screen
            terminal.keys("Down", "Enter")
            # the details are drawn in more than one frame: wait for what is checked, not only for its heading
            screen = terminal.wait_for(lambda s: "Sent to the model" in s and f"+{mine}" in flat(s))
            assert "you edited it" in flat(screen), screen
        told = str([r.function_responses() for r in server.requests if r.function_responses()])
    assert target.read_text() == f"[main]\n{mine}\nport = 1\n"
    assert f"+{mine}" in told and "holds their version" in told and "+name = new" not in told, told
