"""A scripted ModelClient: each request streams the next scripted reply (text, thoughts, calls), chunk by chunk."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import Any

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.events import Usage
from gemini_tui.core.ground.model_api import (
    CallChunk,
    FunctionCall,
    ModelChunk,
    ModelRequest,
    TextChunk,
    ThoughtChunk,
    UsageChunk,
)

_ids = itertools.count(1)


def call(name: str, **args: Any) -> CallChunk:
    return CallChunk(FunctionCall(f"call-{next(_ids)}", name, args))


def text(value: str, size: int = 0) -> list[TextChunk]:
    """`value` as one chunk, or in chunks of `size` characters (a stream)."""
    if size <= 0:
        return [TextChunk(value)]
    return [TextChunk(value[i:i + size]) for i in range(0, len(value), size)]


def thought(value: str) -> ThoughtChunk:
    return ThoughtChunk(value)


@dataclass
class Reply:
    chunks: list[ModelChunk]
    delay_s: float = 0.0  # between chunks
    wait: asyncio.Event | None = None  # held before the last chunk, so a test can look mid-stream


@dataclass
class ScriptedModel:
    """Replies in order; when the script runs out, it answers "(end of script)". Records every request."""

    replies: list[Reply] = field(default_factory=list)
    model_name: str = "scripted-model"
    is_offline: bool = False
    requests: list[ModelRequest] = field(default_factory=list)
    record: bool = True  # keep every request (tests look at them; long benchmarks turn it off)

    def add(self, *chunks: ModelChunk | Iterable[ModelChunk], delay_s: float = 0.0,
            wait: asyncio.Event | None = None) -> ScriptedModel:
        flat: list[ModelChunk] = []
        for chunk in chunks:
            flat.extend(chunk if isinstance(chunk, list | tuple) else [chunk])  # type: ignore[arg-type]
        self.replies.append(Reply(flat, delay_s, wait))
        return self

    async def stream(self, request: ModelRequest, abort_signal: AbortSignal) -> AsyncIterator[ModelChunk]:
        if self.record:
            self.requests.append(request)
        reply = self.replies.pop(0) if self.replies else Reply([TextChunk("(end of script)")])
        for index, chunk in enumerate(reply.chunks):
            if abort_signal.aborted:
                return
            if reply.wait is not None and index == len(reply.chunks) - 1:
                waiter = asyncio.ensure_future(abort_signal.wait())
                held = asyncio.ensure_future(reply.wait.wait())
                await asyncio.wait({waiter, held}, return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                held.cancel()
                if abort_signal.aborted:
                    return
            if reply.delay_s:
                await asyncio.sleep(reply.delay_s)
            yield chunk
        yield UsageChunk(Usage(prompt_tokens=10, candidates_tokens=5, total_tokens=15))


def scripted_session(root: Any, model: ScriptedModel, home: Any, **kwargs: Any) -> Any:
    """A real Session (real registry and tools) around `model`, with settings from `home` only. Of the
    environment only folder trust carries over (tests/conftest.py trusts workspaces unless a test opts out)."""
    import os

    from gemini_tui.cli.assemble import build_session
    from gemini_tui.core.approvals.trust import TRUST_ENV

    env = {TRUST_ENV: os.environ[TRUST_ENV]} if TRUST_ENV in os.environ else {}
    return build_session(root, home=home, env=env, model_factory=lambda _name, _root, _env: (model, None), **kwargs)


@dataclass
class RoutedModel(ScriptedModel):
    """A ScriptedModel whose requests are answered from `routes[marker]` when the marker is in the request's
    system instruction (a subagent's body), else from its own replies (the session's model): agents running at
    once each read their own script, whatever order their requests come in."""

    routes: dict[str, ScriptedModel] = field(default_factory=dict)

    def route(self, marker: str) -> ScriptedModel:
        return self.routes.setdefault(marker, ScriptedModel(model_name=self.model_name))

    async def stream(self, request: ModelRequest, abort_signal: AbortSignal) -> AsyncIterator[ModelChunk]:
        target = next((model for marker, model in self.routes.items() if marker in request.system_instruction),
                      None)
        source = target.stream(request, abort_signal) if target is not None else super().stream(request,
                                                                                                 abort_signal)
        async for chunk in source:
            yield chunk
