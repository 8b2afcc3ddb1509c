"""Drives `gemini-tui --acp` through the SDK's own client side (which validates every message against the schema),
against the fake Gemini server: a recording client whose answers to permission questions a test chooses."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
from acp import RequestError
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeniedOutcome,
    KillTerminalResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from tests.fakes import warm_start
from tests.fakes.gemini_server import FakeGeminiServer

MODEL = "gemini-2.5-flash"
# A choice: an option id, "cancelled" (the client's own cancel), or "never" (the question stays unanswered)
Chooser = Callable[[Any, list[Any]], str]


def agent_command(*extra: str) -> list[str]:
    return [*warm_start.command(os.environ, "gemini_tui.cli.main"), "--acp", "-m", MODEL, *extra]


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
    # an editor's open buffers (path -> unsaved text): reads prefer them, writes land in them, not on disk
    buffers: dict[str, str] = field(default_factory=dict)
    file_requests: list[tuple[str, str]] = field(default_factory=list)
    # terminals the client ran (real processes), and what the agent asked of them
    terminals: dict[str, dict[str, Any]] = field(default_factory=dict)
    terminal_requests: list[tuple[str, Any]] = field(default_factory=list)

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

    async def read_text_file(self, session_id: str, path: str, line: int | None = None, limit: int | None = None,
                             **_: Any) -> ReadTextFileResponse:
        self.file_requests.append(("read", path))
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        try:
            return ReadTextFileResponse(content=Path(path).read_text())
        except OSError as exc:
            raise RequestError.resource_not_found(path) from exc

    async def write_text_file(self, session_id: str, path: str, content: str, **_: Any) -> WriteTextFileResponse:
        self.file_requests.append(("write", path))
        self.buffers[path] = content
        return WriteTextFileResponse()

    async def create_terminal(self, session_id: str, command: str, args: list[str] | None = None,
                              env: list[Any] | None = None, cwd: str | None = None,
                              output_byte_limit: int | None = None, **_: Any) -> CreateTerminalResponse:
        argv = [command, *(args or [])]
        self.terminal_requests.append(("create", {"argv": argv, "cwd": cwd,
                                                  "env": {e.name: e.value for e in env or []}}))
        process = await asyncio.create_subprocess_exec(
            *argv, cwd=cwd, env={**os.environ, **{e.name: e.value for e in env or []}},
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
            start_new_session=True)
        output = bytearray()

        async def read() -> None:
            assert process.stdout is not None
            while chunk := await process.stdout.read(4096):
                output.extend(chunk)

        terminal_id = f"term-{len(self.terminals) + 1}"
        self.terminals[terminal_id] = {"process": process, "output": output, "reader": asyncio.ensure_future(read())}
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def _exit(self, terminal_id: str) -> TerminalExitStatus:
        terminal = self.terminals[terminal_id]
        code = await terminal["process"].wait()
        await terminal["reader"]
        return TerminalExitStatus(exit_code=code if code >= 0 else None,
                                  signal=None if code >= 0 else signal.Signals(-code).name)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str,
                                     **_: Any) -> WaitForTerminalExitResponse:
        self.terminal_requests.append(("wait", terminal_id))
        status = await self._exit(terminal_id)
        return WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def terminal_output(self, session_id: str, terminal_id: str, **_: Any) -> TerminalOutputResponse:
        self.terminal_requests.append(("output", terminal_id))
        terminal = self.terminals[terminal_id]
        done = terminal["process"].returncode is not None
        return TerminalOutputResponse(output=terminal["output"].decode(errors="replace"), truncated=False,
                                      exit_status=await self._exit(terminal_id) if done else None)

    async def kill_terminal(self, session_id: str, terminal_id: str, **_: Any) -> KillTerminalResponse:
        self.terminal_requests.append(("kill", terminal_id))
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.terminals[terminal_id]["process"].pid, signal.SIGKILL)
        return KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str, **_: Any) -> ReleaseTerminalResponse:
        self.terminal_requests.append(("release", terminal_id))
        process = self.terminals[terminal_id]["process"]
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        return ReleaseTerminalResponse()

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


# -- one agent process for a module's tests ---------------------------------------------------------------------------
@dataclass
class SessionRouter:
    """The client side of a shared connection: each session's updates and requests go to the RecordingClient of the
    test that opened it (`current` when its first message comes, which may precede the session's own answer)."""

    current: RecordingClient = field(default_factory=RecordingClient)
    owners: dict[str, RecordingClient] = field(default_factory=dict)

    def owner(self, session_id: str) -> RecordingClient:
        return self.owners.setdefault(session_id, self.current)

    async def session_update(self, session_id: str, update: Any, **rest: Any) -> None:
        await self.owner(session_id).session_update(session_id, update, **rest)

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any],
                                 **rest: Any) -> RequestPermissionResponse:
        return await self.owner(session_id).request_permission(session_id, tool_call, options, **rest)

    async def read_text_file(self, session_id: str, path: str, **rest: Any) -> ReadTextFileResponse:
        return await self.owner(session_id).read_text_file(session_id, path, **rest)

    async def write_text_file(self, session_id: str, path: str, content: str, **rest: Any) -> WriteTextFileResponse:
        return await self.owner(session_id).write_text_file(session_id, path, content, **rest)

    async def create_terminal(self, session_id: str, command: str, **rest: Any) -> CreateTerminalResponse:
        return await self.owner(session_id).create_terminal(session_id, command, **rest)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str,
                                     **rest: Any) -> WaitForTerminalExitResponse:
        return await self.owner(session_id).wait_for_terminal_exit(session_id, terminal_id, **rest)

    async def terminal_output(self, session_id: str, terminal_id: str, **rest: Any) -> TerminalOutputResponse:
        return await self.owner(session_id).terminal_output(session_id, terminal_id, **rest)

    async def kill_terminal(self, session_id: str, terminal_id: str, **rest: Any) -> KillTerminalResponse:
        return await self.owner(session_id).kill_terminal(session_id, terminal_id, **rest)

    async def release_terminal(self, session_id: str, terminal_id: str, **rest: Any) -> ReleaseTerminalResponse:
        return await self.owner(session_id).release_terminal(session_id, terminal_id, **rest)

    def on_connect(self, conn: Any) -> None:
        pass


@dataclass
class SharedAgent:
    """One initialized agent process, its fake Gemini server and its home, for the tests of a module that need a
    fresh session (each in its own folder, with its own client) rather than a fresh process. What the agent writes
    on stderr is kept in `stderr`."""

    conn: Any
    process: asyncio.subprocess.Process
    router: SessionRouter
    server: FakeGeminiServer
    home: Path
    init: Any
    stderr: list[str] = field(default_factory=list)

    def serving(self, client: RecordingClient | None = None) -> tuple[Any, RecordingClient]:
        """The connection, the sessions opened from now on answered by `client`."""
        self.router.current = client = client or RecordingClient()
        return self.conn, client


@contextlib.asynccontextmanager
async def shared_agent(base: Path, *, caps: ClientCapabilities | None = None, extra_args: tuple[str, ...] = (),
                       env: dict[str, str] | None = None) -> AsyncIterator[SharedAgent]:
    """An agent process for many sessions, started in a folder of its own under `base`."""
    home, start = base / "home", base / "start"
    home.mkdir()
    start.mkdir()
    router = SessionRouter()
    with FakeGeminiServer() as server:
        async with acp.spawn_agent_process(router, *agent_command(*extra_args), cwd=str(start),
                                           env={**agent_env(server.base_url, home), **(env or {})}) as (conn, process):
            init = await asyncio.wait_for(conn.initialize(protocol_version=1,
                                                          client_capabilities=caps or ClientCapabilities()), 30)
            agent = SharedAgent(conn, process, router, server, home, init)

            async def keep_stderr() -> None:  # drained all along: a full pipe would stop the agent
                assert process.stderr is not None
                while line := await process.stderr.readline():
                    agent.stderr.append(line.decode(errors="replace"))

            reader = asyncio.ensure_future(keep_stderr())
            try:
                yield agent
            finally:
                reader.cancel()


async def until(predicate: Callable[[], bool], timeout_s: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.02)
