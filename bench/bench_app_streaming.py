"""Benchmark: 100 KB of Markdown streamed in small chunks into the chat: total CPU, and key-press latency
during the stream (headless app, real Session, scripted model)."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bench.app_keys import key_latency, main_screen
from gemini_tui.app.main import GeminiApp
from tests.fakes.scripted_model import ScriptedModel, scripted_session, text

SIZE_BYTES = 100_000
CHUNK = 40  # characters per streamed chunk, about what Gemini sends
CHUNK_DELAY_S = 0.0005
TARGET_CPU_S = 2.0
TARGET_KEY_S = 0.050


def markdown_document(size: int) -> str:
    """Headings, paragraphs, lists, tables and code fences, repeated to `size` characters."""
    section = (
        "## Section {n}\n\nThe scheduler runs **read-only** calls together and `edits` one at a time, so the "
        "history sent to the model stays valid. See [the spec](https://example.com/spec) for details.\n\n"
        "- first point about {n}\n- second point, with *emphasis*\n- third point\n\n"
        "```python\ndef step_{n}(value: int) -> int:\n    total = value * {n}\n    return total + 1\n```\n\n"
        "| tool | calls |\n|---|---:|\n| read_file | {n} |\n| replace | 2 |\n\n"
    )
    parts: list[str] = []
    n = 0
    while sum(map(len, parts)) < size:
        n += 1
        parts.append(section.format(n=n))
    return "".join(parts)[:size]


async def measure() -> dict[str, float]:
    document = markdown_document(SIZE_BYTES)
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp) / "project", Path(tmp) / "home"
        root.mkdir()
        home.mkdir()
        model = ScriptedModel().add(text(document, CHUNK), delay_s=CHUNK_DELAY_S)
        app = GeminiApp(scripted_session(root, model, home), root)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = main_screen(pilot)
            idle = [await key_latency(pilot) for _ in range(5)]
            screen.prompt.input.clear()
            await pilot.pause()
            cpu_started, wall_started = time.process_time(), time.perf_counter()
            screen.turns.send("write a long document")
            await asyncio.sleep(0.2)
            during: list[float] = []
            while screen.busy:
                during.append(await key_latency(pilot))
                await asyncio.sleep(0.1)
            answer = screen.chat.query(".answer").last()
            while answer.text != document:  # type: ignore[attr-defined]
                await asyncio.sleep(0.01)
            await pilot.pause()
            cpu, wall = time.process_time() - cpu_started, time.perf_counter() - wall_started
    return {"cpu": cpu, "wall": wall, "idle_key": statistics.median(idle),
            "key_median": statistics.median(during), "key_max": max(during), "samples": len(during),
            "chunks": len(document) / CHUNK}


def main() -> None:
    figures = asyncio.run(measure())
    print(f"streamed {SIZE_BYTES // 1000} KB of Markdown in {figures['chunks']:.0f} chunks of {CHUNK} characters "
          f"({figures['wall']:.2f} s wall)")
    print(f"total CPU: {figures['cpu']:.2f} s; target <= {TARGET_CPU_S} s; ratio {figures['cpu'] / TARGET_CPU_S:.2f}")
    print(f"key-press latency during the stream: median {figures['key_median'] * 1000:.1f} ms, "
          f"max {figures['key_max'] * 1000:.1f} ms over {figures['samples']:.0f} presses; "
          f"target <= {TARGET_KEY_S * 1000:.0f} ms; ratio {figures['key_max'] / TARGET_KEY_S:.2f} (max)")
    print(f"key-press latency idle: median {figures['idle_key'] * 1000:.1f} ms")


if __name__ == "__main__":
    main()
