"""Benchmark: sessions and checkpoints. Autosave per turn; resuming a 500-turn session to the app's first frame
of it; a checkpoint before an edit in a 10,000-file repository (warm); a restore."""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

TARGETS = {"autosave_ms": 5.0, "resume_s": 1.0, "checkpoint_ms": 150.0, "restore_s": 1.0}
TURNS = 500
FILES = 10_000


def autosave_and_a_long_session(home: Path, root: Path) -> list[float]:
    """500 turns, each a prompt, a call with its display and an answer, saved as a session would be."""
    from gemini_tui.core.ground.display import DirectoryListing, ListingEntry
    from gemini_tui.core.ground.events import CallFinished, CallState, TextDelta, ToolCallInfo, TurnStarted
    from gemini_tui.core.ground.model_api import Content, FunctionCall, FunctionResponse
    from gemini_tui.core.ground.parts import TextPart
    from gemini_tui.core.ground.tool_result import ToolResult
    from gemini_tui.core.persistence.recorder import SessionRecorder
    from gemini_tui.core.persistence.store import SessionStore, project_dir

    store = SessionStore(project_dir(home / ".gemini", root))
    history: list[Content] = []
    recorder = SessionRecorder(store.new_writer("bench-session-0000", root, "offline"), lambda: history)
    listing = DirectoryListing(str(root), tuple(ListingEntry(f"file_{i}.py", False, i) for i in range(20)))
    times = []
    for n in range(TURNS):
        recorder.on_event(TurnStarted(f"p{n}", f"prompt number {n}: list the folder"))
        history.append(Content("user", [TextPart(f"prompt number {n}: list the folder")]))
        history.append(Content("model", [FunctionCall(f"c{n}", "list_directory", {"dir_path": str(root)})]))
        info = ToolCallInfo(f"c{n}", "list_directory", {"dir_path": str(root)}, CallState.success, str(root),
                            "ReadFolder", 1.0, 1.1)
        recorder.on_event(CallFinished(info, ToolResult("listing " * 50, listing), 100))
        history.append(Content("user", [FunctionResponse(f"c{n}", "list_directory", {"output": "listing " * 50})]))
        recorder.on_event(TextDelta(f"Here is the listing, turn {n}. " * 5))
        history.append(Content("model", [TextPart(f"Here is the listing, turn {n}. " * 5)]))
        started = time.perf_counter()
        recorder.flush(end_answer=True)
        times.append((time.perf_counter() - started) * 1000)
    recorder.close()
    return times


async def resume_to_first_frame(home: Path, root: Path) -> float:
    from gemini_tui.app.main import GeminiApp
    from gemini_tui.app.transcript import RESUMED_TURNS_SHOWN
    from gemini_tui.cli.assemble import build_session

    started = time.perf_counter()
    session = build_session(root, home=home, env={}, model="offline")
    session.saved.resume("latest")
    app = GeminiApp(session, root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        while len(getattr(getattr(screen, "chat", None), "turns", ())) < RESUMED_TURNS_SHOWN:
            await pilot.pause(0.01)
            screen = app.screen
        elapsed = time.perf_counter() - started
    return elapsed


def checkpoints(home: Path) -> tuple[list[float], float]:
    from gemini_tui.core.persistence.shadow_repo import ShadowRepo
    from gemini_tui.tools.workspace.restore import ConfinedRestorer

    repo_root = home / "big"
    for d in range(FILES // 100):
        folder = repo_root / "src" / f"d{d}"
        folder.mkdir(parents=True)
        for f in range(100):
            (folder / f"f{f}.py").write_text(f"print({d}, {f})\n" * 5)
    repo = ShadowRepo(repo_root, home / "shadow")
    repo.snapshot({"tool": "warm-up"})  # the first one hashes every file; later ones only what changed
    times = []
    for n in range(10):
        (repo_root / "src" / "d5" / "f5.py").write_text(f"edit {n}\n")
        started = time.perf_counter()
        repo.snapshot({"tool": "replace"})
        times.append((time.perf_counter() - started) * 1000)
    first = repo.git("rev-list", "--max-parents=0", "refs/heads/checkpoints").decode().split()[0]
    for n in range(20):
        (repo_root / "src" / f"d{n}" / "new.txt").write_text("made by the agent\n")
    started = time.perf_counter()
    plan = repo.plan(first, None)
    failed = repo.restore(plan, ConfinedRestorer(repo_root))
    restore_s = time.perf_counter() - started
    assert not failed and not (repo_root / "src" / "d0" / "new.txt").exists()
    return times, restore_s


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        home, root = Path(scratch) / "home", Path(scratch) / "root"
        home.mkdir()
        root.mkdir()
        os.environ["GEMINI_CLI_HOME"] = str(home)
        times = autosave_and_a_long_session(home, root)
        autosave = statistics.median(times)
        print(f"autosave per turn: median {autosave:.2f} ms, max {max(times):.2f} ms over {TURNS} turns "
              f"(target <= {TARGETS['autosave_ms']} ms median)")
        resume = asyncio.run(resume_to_first_frame(home, root))
        print(f"resume a {TURNS}-turn session to its first frame: {resume:.2f} s (target <= {TARGETS['resume_s']} s)")
        snapshots, restore = checkpoints(home)
        print(f"checkpoint before an edit, {FILES} files, warm: median {statistics.median(snapshots):.0f} ms, "
              f"max {max(snapshots):.0f} ms (target <= {TARGETS['checkpoint_ms']:.0f} ms)")
        print(f"restore (21 files) in that repository: {restore:.2f} s (target <= {TARGETS['restore_s']} s)")
