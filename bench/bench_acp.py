"""Benchmark: from `initialize` to the first `agent_message_chunk`, `gemini-tui --acp` beside Gemini CLI 0.61's
`gemini --acp` (both spawned fresh, driven by the ACP SDK's client, answered by the same fake Gemini server).

The clock starts when the process is spawned (initialize is its first message) and stops at the first chunk of
the answer to a one-line prompt: start-up, session/new and the first streamed request together."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import acp

from tests.fakes.gemini_server import FakeGeminiServer, reply, text
from tests.fakes.node_clients import gemini_cli

RUNS = 5
MODEL = "gemini-2.5-flash"


class FirstChunk:
    def __init__(self) -> None:
        self.seen = asyncio.Event()

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        if update.session_update == "agent_message_chunk":
            self.seen.set()

    async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("no permission is asked in this benchmark")

    def on_connect(self, conn: Any) -> None:
        pass


async def once(program: list[str], root: Path, env: dict[str, str]) -> float:
    client = FirstChunk()
    started = time.perf_counter()
    async with acp.spawn_agent_process(client, *program, cwd=str(root), env=env) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(root), mcp_servers=[])
        turn = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[acp.text_block("hi")]))
        await asyncio.wait_for(client.seen.wait(), 120)
        elapsed = time.perf_counter() - started
        await turn
    return elapsed


def measure(runs: int = RUNS) -> dict[str, list[float]]:
    timings: dict[str, list[float]] = {"gemini-tui": [], "gemini-cli": []}
    programs = {"gemini-tui": [sys.executable, "-m", "gemini_tui.cli.main", "--acp", "-m", MODEL],
                "gemini-cli": [*gemini_cli(), "--acp", "-m", MODEL]}
    with FakeGeminiServer() as server, tempfile.TemporaryDirectory() as tmp:
        home, root = Path(tmp) / "home", Path(tmp) / "work"
        (home / ".gemini").mkdir(parents=True)
        root.mkdir()
        (home / ".gemini" / "settings.json").write_text(json.dumps({"security": {"auth": {
            "selectedType": "gemini-api-key"}}}))
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "GEMINI_CLI_HOME": str(home),
               "GEMINI_API_KEY": "bench", "GOOGLE_GEMINI_BASE_URL": server.base_url,
               "GEMINI_CLI_TRUST_WORKSPACE": "true", "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
        for _ in range(runs):  # alternating, so a busy moment costs both
            for name, program in programs.items():
                server.script(reply(text("Hello there.")))
                timings[name].append(asyncio.run(once(program, root, env)))
    return timings


def main() -> None:
    timings = measure()
    ours, theirs = statistics.median(timings["gemini-tui"]), statistics.median(timings["gemini-cli"])
    print(f"initialize -> first agent_message_chunk, median of {RUNS} fresh processes each:")
    for label, name, median in (("gemini-tui --acp", "gemini-tui", ours), ("gemini --acp", "gemini-cli", theirs)):
        runs = ", ".join(f"{t * 1000:.0f}" for t in timings[name])
        print(f"  {label:17}: {median * 1000:7.0f} ms  ({runs})")
    print(f"  ratio gemini-tui / Gemini CLI: {ours / theirs:.2f}")


if __name__ == "__main__":
    main()
