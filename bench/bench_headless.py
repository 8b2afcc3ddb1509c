"""Benchmark: a whole `gemini-tui -p` process (one list_directory call) beside its floor (target <= 1.2x).

The floor is a bare script that imports google-genai and makes the same two streaming requests to the same
fake Gemini server; the difference is what gemini-tui itself costs: imports, settings, tools, the turn loop."""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

TARGET_RATIO = 1.2
RUNS = 7
REPO = Path(__file__).resolve().parent.parent

# The same two requests, with the same system instruction and function declarations (read from a JSON file
# the benchmark writes from a real session), so only gemini-tui's own work differs.
FLOOR_SCRIPT = """
import asyncio, json, os, sys
from google import genai
from google.genai import types

async def main():
    request = json.load(open(sys.argv[2]))
    client = genai.Client(api_key="bench", http_options=types.HttpOptions(
        base_url=os.environ["GOOGLE_GEMINI_BASE_URL"], api_version="v1beta"))
    config = {"system_instruction": request["system_instruction"],
              "tools": [{"function_declarations": request["tools"]}]}
    contents = [{"role": "user", "parts": [{"text": "list"}]}]
    calls = []
    async for chunk in await client.aio.models.generate_content_stream(
            model="gemini-2.5-pro", contents=contents, config=config):
        calls += chunk.function_calls or []
    listing = "\\n".join(sorted(os.listdir(sys.argv[1])))
    contents += [{"role": "model", "parts": [{"function_call": calls[0]}]},
                 {"role": "user", "parts": [{"function_response": {"name": calls[0].name,
                                                                    "response": {"output": listing}}}]}]
    async for chunk in await client.aio.models.generate_content_stream(
            model="gemini-2.5-pro", contents=contents, config=config):
        sys.stdout.write(chunk.text or "")

asyncio.run(main())
"""


def write_request(root: Path, home: Path, path: Path) -> None:
    """The system instruction and declarations gemini-tui sends for `root`, for the floor to send too."""
    from gemini_tui.cli.assemble import build_session

    session = build_session(root, env={"GEMINI_API_KEY": "bench"}, home=home)
    path.write_text(json.dumps({"system_instruction": session.system_instruction(),
                                "tools": session.registry.function_declarations()}))


def _timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          check=False)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0 or "Listed." not in done.stdout:
        raise RuntimeError(f"{argv[:3]} failed ({done.returncode}): {done.stdout[-300:]} {done.stderr[-1500:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(runs: int = RUNS) -> tuple[tuple[float, float], tuple[float, float]]:
    """Median (wall, CPU) seconds of gemini-tui and of the floor over `runs` alternating runs."""
    with FakeGeminiServer() as server, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        home = Path(tmp) / "home"
        root.mkdir()
        home.mkdir()
        for index in range(20):
            (root / f"file{index}.txt").write_text("x\n")
        floor_script = Path(tmp) / "floor.py"
        floor_script.write_text(FLOOR_SCRIPT)
        request = Path(tmp) / "request.json"
        write_request(root, home, request)
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "GEMINI_CLI_HOME": str(home),
               "PYTHONPATH": str(REPO), "GEMINI_API_KEY": "bench", "GOOGLE_GEMINI_BASE_URL": server.base_url}
        ours: list[tuple[float, float]] = []
        floor: list[tuple[float, float]] = []
        for _ in range(runs + 1):  # the first pair warms the OS caches and is not counted
            server.script(reply(text("Looking."), call("list_directory", path=str(root))), reply(text("Listed.")))
            ours.append(_timed([sys.executable, "-m", "gemini_tui", "-p", "list"], root, env))
            server.script(reply(text("Looking."), call("list_directory", path=str(root))), reply(text("Listed.")))
            floor.append(_timed([sys.executable, str(floor_script), str(root), str(request)], root, env))
        def medians(samples: list[tuple[float, float]]) -> tuple[float, float]:
            return statistics.median(s[0] for s in samples[1:]), statistics.median(s[1] for s in samples[1:])

        return medians(ours), medians(floor)


def main() -> None:
    (ours, ours_cpu), (floor, floor_cpu) = measure()
    ratio = ours / floor
    print(f"gemini-tui -p (one list_directory call): {ours * 1000:7.1f} ms wall, {ours_cpu * 1000:7.1f} ms CPU"
          f"  (medians of {RUNS} processes)")
    print(f"floor (google-genai, same two requests): {floor * 1000:7.1f} ms wall, {floor_cpu * 1000:7.1f} ms CPU")
    print(f"ratio (wall): {ratio:.2f}x   target: <= {TARGET_RATIO}x   {'OK' if ratio <= TARGET_RATIO else 'MISSED'}")
    print(f"ratio (CPU):  {ours_cpu / floor_cpu:.2f}x   (steadier on a busy machine)")


if __name__ == "__main__":
    main()
