"""`gemini-tui -p` saves as it goes: kill -9 mid-turn, then `--resume latest -p` continues the conversation."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from tests.e2e.test_headless import REPO, run_cli
from tests.fakes import warm_start
from tests.fakes.gemini_server import FakeGeminiServer, reply, text


def test_kill_mid_turn_then_resume_sends_the_earlier_turns(gemini_server: FakeGeminiServer, root: Path,
                                                           home: Path) -> None:
    gemini_server.script(reply(text("First answer.")))
    out = run_cli(["-p", "first prompt"], root, home, gemini_server)
    assert out.returncode == 0, out.stderr

    # the second run hangs in its model request; it is killed with SIGKILL while it waits
    gemini_server.script(reply(text("never "), text("arrives"), delay_s=30))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GEMINI_CLI_HOME": str(home),
           "PYTHONPATH": str(REPO), "LANG": "C.UTF-8", "GEMINI_API_KEY": "k",
           "GOOGLE_GEMINI_BASE_URL": gemini_server.base_url}
    process = subprocess.Popen([*warm_start.command(env), "--resume", "latest", "-p", "second prompt"],
                               cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while len(gemini_server.requests) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(gemini_server.requests) == 2
    process.send_signal(signal.SIGKILL)
    process.wait(10)

    gemini_server.script(reply(text("Third answer.")))
    out = run_cli(["--resume", "latest", "-p", "third prompt", "-o", "json"], root, home, gemini_server)
    assert out.returncode == 0, out.stderr
    sent = gemini_server.requests[-1].contents
    assert sent[0]["parts"] == [{"text": "first prompt"}]
    assert sent[1] == {"role": "model", "parts": [{"text": "First answer."}]}
    # the killed prompt got no answer: it is still there, joined by the next one (roles alternate)
    assert sent[2]["role"] == "user" and [p["text"] for p in sent[2]["parts"]] == ["second prompt", "third prompt"]

    listing = run_cli(["--list-sessions"], root, home)
    assert listing.returncode == 0
    assert "1. first prompt" in listing.stdout and "3 turns" in listing.stdout
    assert "  2." not in listing.stdout  # one session, resumed twice


def test_list_delete_and_bad_resume(gemini_server: FakeGeminiServer, root: Path, home: Path) -> None:
    out = run_cli(["--list-sessions"], root, home)
    assert out.returncode == 0 and "No saved sessions" in out.stdout
    out = run_cli(["--resume", "latest", "-p", "hello"], root, home, gemini_server)
    assert out.returncode == 1 and "Cannot resume session 'latest': No saved sessions" in out.stderr
    assert gemini_server.requests == []  # nothing ran in a fresh session instead
    for word in ("one", "two"):
        gemini_server.script(reply(text(f"answer {word}")))
        assert run_cli(["-p", f"prompt {word}"], root, home, gemini_server).returncode == 0
    out = run_cli(["--list-sessions"], root, home)
    assert "  1. prompt one" in out.stdout and "  2. prompt two" in out.stdout
    out = run_cli(["--delete-session", "1"], root, home)
    assert out.returncode == 0 and "Deleted session 1: prompt one" in out.stdout
    out = run_cli(["--list-sessions"], root, home)
    assert "prompt one" not in out.stdout and "  1. prompt two" in out.stdout
    out = run_cli(["--delete-session", "9"], root, home)
    assert out.returncode == 1 and "No session 9" in out.stderr
    gemini_server.script(reply(text("resumed")))
    out = run_cli(["-r", "1", "-p", "again"], root, home, gemini_server)
    assert out.returncode == 0
    assert [c["parts"][0]["text"] for c in gemini_server.requests[-1].contents] == ["prompt two", "answer two",
                                                                                    "again"]
