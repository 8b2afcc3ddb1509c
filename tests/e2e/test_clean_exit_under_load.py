"""Many short headless runs side by side on a busy machine: each ends cleanly, without a traceback at exit.

An import still running on a thread while the interpreter shuts down fails inside importlib (`name 'sys' is not
defined`); it only shows when the machine is busy: twelve runs at once keep every core of this kind of machine
busy (they are each other's load; processes burning CPU beside them only doubled the test's cost). Some runs end
early (an unknown --resume, before any request), which is when a warm-up import is most likely still running."""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.e2e.test_headless import run_cli
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

RUNS = 12


def test_short_runs_under_load_end_without_a_traceback(gemini_server: FakeGeminiServer, tmp_path: Path) -> None:
    def respond(request):  # each run: a call, then (its answer sent) a last word; runs side by side share the server
        if request.function_responses():
            return reply(text("Done \udc80."))
        return reply(text("Lone \ud800 half, a pair cut \ud83d"), text("\ude00 in two."),
                     call("list_directory", dir_path="."), text("\x00\u202e"))

    gemini_server.responder = respond

    def one(index: int) -> tuple[list[str], subprocess.CompletedProcess[str]]:
        root, home = tmp_path / f"root{index}", tmp_path / f"home{index}"
        root.mkdir()
        home.mkdir()
        (root / "a.txt").write_text("a")
        args = ["--resume", "no-such-session", "-p", "hi"] if index % 3 == 2 else \
            ["-p", "list", "-o", ["text", "json", "stream-json"][index % 3], "--approval-mode", "yolo"]
        return args, run_cli(args, root, home, gemini_server)

    with ThreadPoolExecutor(RUNS) as pool:
        results = list(pool.map(one, range(RUNS)))
    for args, done in results:
        for sign in ("Traceback", "Exception ignored", "NameError", "Fatal Python error"):
            assert sign not in done.stderr, (args, done.stderr)
        if args[0] == "--resume":
            assert done.returncode == 1 and "Cannot resume session 'no-such-session'" in done.stderr
        else:
            assert done.returncode == 0, (args, done.stderr)
            assert "Done" in done.stdout
