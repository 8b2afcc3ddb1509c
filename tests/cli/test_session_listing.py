"""Listings of saved sessions print saved text: `--list-sessions` (a real run of the CLI), `describe()` and the
`/resume` picker show a first prompt holding OSC, CSI, DCS and C1 bytes cleaned, never obeyed."""

from __future__ import annotations

import itertools
import uuid
from pathlib import Path

import pytest

from gemini_tui.core.ground.terminal_text import has_terminal_controls
from gemini_tui.core.persistence.listing import describe
from gemini_tui.core.persistence.store import SessionStore, project_dir
from tests.e2e.test_headless import run_cli

# what a hostile prompt may carry: each would act on the terminal if printed raw
SEQUENCES = {
    "osc52 clipboard": "\x1b]52;c;cm0gLXJmIH4=\x07",
    "osc title, ST": "\x1b]0;owned\x1b\\",
    "8-bit osc": "\x9d0;owned\x9c",
    "csi clear": "\x1b[2J\x1b[H",
    "8-bit csi": "\x9b31m",
    "dcs": "\x1bPq#0;2;0;0;0\x1b\\",
    "apc": "\x1b_hidden\x1b\\",
    "c1 next line": "\x85",
    "bell": "\x07",
    "lone esc": "\x1b",
    "carriage return": "\rspoof",
    "cut-off osc": "\x1b]8;;http://x",
}
PLACES = ("start", "middle", "past the cut")


def hostile_prompt(sequence: str, place: str) -> str:
    words = "fix the parser tests"
    if place == "start":
        return sequence + words
    if place == "middle":
        return "fix the " + sequence + "parser tests"
    return words + " " + "x" * 50 + sequence + " tail"  # where describe() cuts the prompt at 60 characters


def save(store: SessionStore, root: Path, prompt: str, session_id: str | None = None) -> None:
    writer = store.new_writer(session_id or str(uuid.uuid4()), root, "gemini-2.5-pro")
    writer.append([{"kind": "prompt", "text": prompt}])
    writer.close()


CASES = list(itertools.product(SEQUENCES, PLACES))


@pytest.mark.parametrize("name, place", CASES)
def test_describe_cleans_every_sequence_wherever_it_sits(name: str, place: str, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "project")
    save(store, tmp_path, hostile_prompt(SEQUENCES[name], place))
    line = describe(store.summaries()[0])
    assert not has_terminal_controls(line), repr(line)
    assert "\x1b" not in line and "\x9b" not in line and "\x9d" not in line
    assert line.startswith("  1. ") and "1 turn" in line
    if place != "past the cut" and name not in ("lone esc", "cut-off osc"):  # these swallow what follows
        assert "parser tests" in line


def test_list_sessions_prints_no_control_byte(root: Path, home: Path) -> None:
    store = SessionStore(project_dir(home / ".gemini", root))
    for name, place in CASES:
        save(store, root, hostile_prompt(SEQUENCES[name], place))
    save(store, root, "an ordinary prompt")
    # a session file whose id (read from the file) is hostile too
    save(store, root, "hostile id", session_id="\x1b]0;id\x07" + str(uuid.uuid4()))
    out = run_cli(["--list-sessions"], root, home)
    assert out.returncode == 0, out.stderr
    assert f"({len(CASES) + 2})" in out.stdout  # every session is listed
    assert "an ordinary prompt" in out.stdout and "hostile id" in out.stdout
    assert not has_terminal_controls(out.stdout), [line for line in out.stdout.splitlines()
                                                   if has_terminal_controls(line)]
    assert not has_terminal_controls(out.stderr)
