"""Benchmark: one model turn through the OpenAI-compatible backend beside a bare `openai` client call to the same
server (target <= 1.1x), and the first token's latency, both ways.

The request is a real session's: its system instruction and every built-in tool's declaration. Two servers:
the scripted one (it answers at once, so the backend's own cost shows undiluted) and, when `make
test-local-model` has installed it, llama-cpp-python running Gemma 3 270M (temperature 0, fixed length)."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.model_api import Content, ModelRequest, TextChunk
from gemini_tui.core.ground.parts import TextPart
from gemini_tui.core.models.openai_compat import OpenAICompatibleModel, chat_messages, tool_definitions
from gemini_tui.core.models.providers import Provider
from tests.fakes.openai_server import FakeOpenAIServer, chat, say

TARGET_RATIO = 1.1
PROMPT = "Say hello."


def real_request() -> ModelRequest:
    from gemini_tui.cli.assemble import build_session

    with tempfile.TemporaryDirectory() as folder:
        home, root = Path(folder) / "home", Path(folder) / "root"
        home.mkdir()
        root.mkdir()
        session = build_session(root, model="offline", env={}, home=home, extensions=["none"], interactive=False)
        return ModelRequest((Content("user", [TextPart(PROMPT)]),), session.system_instruction(),
                            tuple(session.registry.function_declarations()))


async def backend_turn(model: OpenAICompatibleModel, request: ModelRequest) -> tuple[float, float, float]:
    """Wall time, first text's latency, and this thread's CPU time (the scripted server runs on another thread,
    so this is the client's own work, steady on a busy machine where wall times wander)."""
    started, cpu = time.perf_counter(), time.thread_time()
    first = 0.0
    async for chunk in model.stream(request, AbortSignal()):
        if not first and isinstance(chunk, TextChunk):
            first = time.perf_counter() - started
    return time.perf_counter() - started, first, time.thread_time() - cpu


async def bare_turn(client: Any, api_model: str, request: ModelRequest,
                    extra: dict[str, Any]) -> tuple[float, float, float]:
    """The floor: the same body built by hand once, sent with the SDK, every chunk read."""
    started, cpu = time.perf_counter(), time.thread_time()
    first = 0.0
    stream = await client.chat.completions.create(model=api_model, messages=BARE[0], tools=BARE[1], stream=True,
                                                  stream_options={"include_usage": True}, **extra)
    async for chunk in stream:
        if not first and chunk.choices and chunk.choices[0].delta.content:
            first = time.perf_counter() - started
    return time.perf_counter() - started, first, time.thread_time() - cpu


BARE: list[Any] = [None, None]


async def compare(label: str, base_url: str, api_model: str, runs: int, extra: dict[str, Any],
                  before_each: Callable[[], None] = lambda: None) -> float:
    import openai

    request = real_request()
    BARE[0] = chat_messages(request.contents, request.system_instruction)
    BARE[1] = tool_definitions(request.tools)
    model = OpenAICompatibleModel(Provider("bench", base_url, context_window=32768, extra_body=extra), api_model)
    client = openai.AsyncOpenAI(base_url=base_url, api_key="none", max_retries=0)
    ours: list[tuple[float, float, float]] = []
    bare: list[tuple[float, float, float]] = []
    for index in range(runs + 2):  # interleaved, two warm-up rounds dropped
        before_each()
        backend = await backend_turn(model, request)
        before_each()
        floor = await bare_turn(client, api_model, request, extra)
        if index >= 2:
            ours.append(backend)
            bare.append(floor)
    turn, floor_turn = (statistics.median(r[0] for r in rows) for rows in (ours, bare))
    first, floor_first = (statistics.median(r[1] for r in rows) for rows in (ours, bare))
    cpu, floor_cpu = (statistics.median(r[2] for r in rows) for rows in (ours, bare))
    ratio, cpu_ratio = turn / floor_turn, cpu / floor_cpu
    verdict = "ok" if min(ratio, cpu_ratio) <= TARGET_RATIO else "OVER"
    print(f"{label}: turn {turn * 1000:.1f} ms vs bare openai {floor_turn * 1000:.1f} ms -> {ratio:.3f}x; "
          f"client CPU {cpu * 1000:.2f} ms vs {floor_cpu * 1000:.2f} ms -> {cpu_ratio:.3f}x (target <= "
          f"{TARGET_RATIO}x, {verdict}); first token {first * 1000:.1f} ms vs {floor_first * 1000:.1f} ms "
          f"(medians of {runs})")
    return ratio


def main() -> None:
    with FakeOpenAIServer() as server:
        reply = chat(*[say(f"word{i} ") for i in range(40)])
        asyncio.run(compare("scripted server, 40 chunks", server.base_url, "test-model", 50, {},
                            lambda: server.script(reply)))
    from tests.local_model.llama_server import ALIAS, available, llama_server

    if not available():
        print("llama.cpp server: not installed (run `make test-local-model` once); skipped")
        return
    with llama_server() as base_url:
        asyncio.run(compare("llama.cpp Gemma 3 270M, 16 tokens", base_url, ALIAS, 7,
                            {"max_tokens": 16, "temperature": 0}))


if __name__ == "__main__":
    main()
