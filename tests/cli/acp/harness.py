"""Drives `gemini-tui --acp` through the SDK's own client side (which validates every message against the schema),
against the fake Gemini server: a recording client whose answers to permission questions a test chooses."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    RequestPermissionResponse,
)

MODEL = "gemini-2.5-flash"
# A choice: an option id, "cancelled" (the client's own cancel), or "never" (the question stays unanswered)
Chooser = Callable[[Any, list[Any]], str]


def agent_command(*extra: str) -> list[str]:
    return [sys.executable, "-m", "gemini_tui.cli.main", "--acp", "-m", MODEL, *extra]


def agent_env(base_url: str, home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI_", "GOOGLE_"))}
    env.update({"GOOGLE_GEMINI_BASE_URL": base_url, "GEMINI_API_KEY": "test-key", "GEMINI_CLI_HOME": str(home),
                "GEMINI_CLI_TRUST_WORKSPACE": "true", **extra})
    return env


def once(_call: Any, _options: list[Any]) -> str:
    return "proceed_once"


@dataclass
class RecordingClient:
    """Records every update and question; answers questions with `choose`."""

    choose: Chooser = once
    updates: list[dict[str, Any]] = field(default_factory=list)
    questions: list[dict[str, Any]] = field(default_factory=list)
    asked: asyncio.Event = field(default_factory=asyncio.Event)

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update.model_dump(mode="json", by_alias=True, exclude_none=True))

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any],
                                 **_: Any) -> RequestPermissionResponse:
        self.questions.append({"tool_call": tool_call.model_dump(mode="json", by_alias=True, exclude_none=True),
                               "options": [o.option_id for o in options]})
        self.asked.set()
        choice = self.choose(tool_call, options)
        if choice == "never":
            await asyncio.Event().wait()
        if choice == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=choice))

    def on_connect(self, conn: Any) -> None:
        pass

    def kinds(self) -> list[str]:
        return [u["sessionUpdate"] for u in self.updates]

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [u for u in self.updates if u["sessionUpdate"] == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u["content"]["text"] for u in self.of(kind))

    def call_statuses(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for update in self.updates:
            if update["sessionUpdate"] in ("tool_call", "tool_call_update") and "status" in update:
                found.setdefault(update["toolCallId"], []).append(update["status"])
        return found


@contextlib.asynccontextmanager
async def running_agent(root: Path, base_url: str, home: Path, client: RecordingClient | None = None, *,
                        caps: ClientCapabilities | None = None, extra_args: tuple[str, ...] = (),
                        env: dict[str, str] | None = None,
                        ) -> AsyncIterator[tuple[Any, RecordingClient, asyncio.subprocess.Process]]:
    """An initialized agent process with its client connection."""
    client = client or RecordingClient()
    async with acp.spawn_agent_process(client, *agent_command(*extra_args), cwd=str(root),
                                       env={**agent_env(base_url, home), **(env or {})}) as (conn, process):
        await asyncio.wait_for(conn.initialize(protocol_version=1, client_capabilities=caps or ClientCapabilities()),
                               30)
        yield conn, client, process


async def until(predicate: Callable[[], bool], timeout_s: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.02)
