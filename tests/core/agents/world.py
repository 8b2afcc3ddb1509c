"""A session with subagents against the fake Gemini server: agent files written into a temporary home and
project, and a responder that answers the session's model and each subagent from their own scripts."""

from __future__ import annotations

import json
import os
import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gemini_tui.cli.assemble import build_session
from gemini_tui.core.approvals.trust import TRUST_ENV
from gemini_tui.core.models.gemini import GeminiModel
from gemini_tui.core.session.session import Session
from tests.core.conftest import FAST_RETRIES
from tests.fakes.gemini_server import FakeGeminiServer, RecordedRequest, Reply, reply, text

RUN_MARKER = "# How this run works"  # in every subagent's system instruction, never in the session's


def agent_file(folder: Path, name: str, body: str = "", **front: Any) -> Path:
    """`<folder>/<name>.md` with front matter `name`, `description` (default) and `front`."""
    folder.mkdir(parents=True, exist_ok=True)
    fields = {"name": name, "description": f"The {name} agent.", **front}
    lines = [f"{key}: {json.dumps(value)}" for key, value in fields.items()]
    path = folder / f"{name}.md"
    path.write_text("---\n" + "\n".join(lines) + "\n---\n" + (body or f"You are {name}.") + "\n", encoding="utf-8")
    return path


def instruction_of(request: RecordedRequest) -> str:
    return "".join(p.get("text", "") for p in (request.body.get("systemInstruction") or {}).get("parts", []))


def first_user_text(request: RecordedRequest) -> str:
    first = request.contents[0] if request.contents else {}
    return "".join(p.get("text", "") for p in first.get("parts", []))


@dataclass
class Router:
    """Answers the session's requests from `parent` and each subagent's from `agents[marker]`, where the marker
    is a text of that agent's system instruction. Every request is kept with when it arrived and by whom."""

    parent: deque[Reply] = field(default_factory=deque)
    agents: dict[str, deque[Reply]] = field(default_factory=dict)
    seen: list[tuple[str, float, RecordedRequest]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def script(self, who: str, *replies: Reply) -> None:
        (self.parent if who == "parent" else self.agents.setdefault(who, deque())).extend(replies)

    def __call__(self, request: RecordedRequest) -> Reply:
        instruction = instruction_of(request)
        with self.lock:
            who = "parent"
            if RUN_MARKER in instruction:
                who = next((marker for marker in self.agents if marker in instruction), "?")
            self.seen.append((who, time.monotonic(), request))
            queue = self.parent if who == "parent" else self.agents.get(who, deque())
            return queue.popleft() if queue else reply(text("OK."))

    def requests_of(self, who: str) -> list[RecordedRequest]:
        return [request for name, _, request in self.seen if name == who]


def session_on(server: FakeGeminiServer, root: Path, home: Path, *, settings: dict[str, Any] | None = None,
               model: str = "gemini-2.5-flash", interactive: bool = True) -> Session:
    """The session the CLI builds, every model it makes the real client on the fake server."""
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings or {}))
    env = {TRUST_ENV: os.environ.get(TRUST_ENV, "true")}

    def factory(name: str, _root: Path, _env: Any) -> tuple[GeminiModel, None]:
        return GeminiModel(name, "test-key", base_url=server.base_url, policy=FAST_RETRIES), None

    return build_session(root, model=model, home=home, env=env, model_factory=factory, interactive=interactive)


def declared(request: RecordedRequest) -> list[str]:
    return request.function_names()


def response_texts(request: RecordedRequest) -> list[str]:
    return [str(r["response"].get("output", r["response"].get("error"))) for r in request.function_responses()]


def names(items: Iterable[Any]) -> list[str]:
    return [item.name for item in items]
