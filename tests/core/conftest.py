"""Fixtures for the core: small real tools, a fake Gemini server, sessions wired to it, an event recorder."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import Field

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import ConfirmationOutcome, Decision, EditConfirmation, ExecConfirmation
from gemini_tui.core.ground.display import FileDiff
from gemini_tui.core.ground.events import ConfirmationRequested, Event, EventBus
from gemini_tui.core.ground.tool_result import ToolErrorKind, ToolResult
from gemini_tui.core.models.gemini import GeminiModel
from gemini_tui.core.models.retry import RetryPolicy
from gemini_tui.core.persistence.store import SessionStore, project_dir
from gemini_tui.core.session.scheduler import ApprovalMode
from gemini_tui.core.session.session import Session
from gemini_tui.core.setup.config import Settings
from gemini_tui.core.shell.grammar import analyze
from gemini_tui.core.tooling.needs import CallNeeds
from gemini_tui.core.tooling.registry import ToolRegistry
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams
from tests.fakes.gemini_server import FakeGeminiServer


class NoteParams(ToolParams):
    name: str = Field(description="Note file name, relative to the root.")
    delay: float = Field(default=0.0, description="Seconds to take.")


class ReadNoteTool(BaseTool[NoteParams]):
    """Read-only: reads `<root>/<name>`; records when it ran, so tests can see concurrency."""

    name = "read_note"
    display_name = "ReadNote"
    description = "Reads a note."
    Params = NoteParams
    kind = ToolKind.read

    def __init__(self, root: Path) -> None:
        self.root = root
        self.runs: list[tuple[str, float, float]] = []

    async def _execute(self, params: NoteParams, abort_signal: AbortSignal, context: CallContext) -> ToolResult:
        started = time.monotonic()
        if params.delay:
            await asyncio.sleep(params.delay)
        self.runs.append((params.name, started, time.monotonic()))
        path = self.root / params.name
        if not path.exists():
            return ToolResult.failure(ToolErrorKind.file_not_found, f"File not found: {params.name}")
        return ToolResult(path.read_text(), path.read_text())


class WriteNoteParams(ToolParams):
    name: str = Field(description="Note file name.")
    content: str = Field(description="New content.")


class WriteNoteTool(BaseTool[WriteNoteParams]):
    """An edit: asks with a diff, honours `reviewed_content` and `with_new_content`."""

    name = "write_note"
    display_name = "WriteNote"
    description = "Writes a note."
    Params = WriteNoteParams
    kind = ToolKind.edit

    def __init__(self, root: Path) -> None:
        self.root = root

    def _current(self, name: str) -> str:
        path = self.root / name
        return path.read_text() if path.exists() else ""

    async def should_confirm_execute(self, params: WriteNoteParams, abort_signal: AbortSignal) -> EditConfirmation:
        diff = FileDiff.between(str(self.root / params.name), self._current(params.name), params.content)

        async def refresh() -> FileDiff:
            return FileDiff.between(str(self.root / params.name), self._current(params.name), params.content)

        return EditConfirmation(f"Write {params.name}", str(self.root / params.name), diff, refresh)

    def with_new_content(self, params: WriteNoteParams, new_content: str, original: str) -> WriteNoteParams:
        return WriteNoteParams(name=params.name, content=new_content)

    async def _execute(self, params: WriteNoteParams, abort_signal: AbortSignal,
                       context: CallContext) -> ToolResult:
        current = self._current(params.name)
        if context.reviewed_content is not None and context.reviewed_content != current:
            return ToolResult.failure(ToolErrorKind.file_changed, f"{params.name} changed since it was reviewed.")
        (self.root / params.name).write_text(params.content)
        diff = FileDiff.between(str(self.root / params.name), current, params.content)
        return ToolResult(f"Wrote {params.name}.", diff)


class CommandParams(ToolParams):
    command: str = Field(description="The command.")
    seconds: float = Field(default=0.0, description="How long it runs.")


class RunCommandTool(BaseTool[CommandParams]):
    """An execute tool: asks with its root command; streams output from a worker thread; stops on abort."""

    name = "run_command"
    display_name = "Run"
    description = "Pretends to run a command."
    Params = CommandParams
    kind = ToolKind.execute

    def __init__(self) -> None:
        self.ran: list[str] = []

    def needs(self, params: CommandParams) -> CallNeeds:
        return CallNeeds(shell=analyze(params.command))

    async def should_confirm_execute(self, params: CommandParams, abort_signal: AbortSignal) -> ExecConfirmation:
        return ExecConfirmation(f"Run {params.command}", params.command, (params.command.split()[0],))

    async def _execute(self, params: CommandParams, abort_signal: AbortSignal, context: CallContext) -> ToolResult:
        def work() -> None:
            assert context.on_output is not None
            context.on_output(f"running {params.command}\n")

        await asyncio.to_thread(work)
        if params.seconds:
            try:
                await asyncio.wait_for(abort_signal.wait(), params.seconds)
                return ToolResult.failure(ToolErrorKind.cancelled, f"{params.command} was stopped.")
            except TimeoutError:
                pass
        self.ran.append(params.command)
        return ToolResult(f"ran {params.command}", f"ran {params.command}")


class StubbornTool(BaseTool[CommandParams]):
    """Ignores its abort signal: the scheduler must still end the call."""

    name = "stubborn"
    display_name = "Stubborn"
    description = "Sleeps, deaf to cancellation."
    Params = CommandParams
    kind = ToolKind.read

    async def _execute(self, params: CommandParams, abort_signal: AbortSignal, context: CallContext) -> ToolResult:
        await asyncio.sleep(params.seconds)
        return ToolResult("woke", "woke")


@pytest.fixture
def tools(root: Path) -> dict[str, BaseTool]:
    return {"read": ReadNoteTool(root), "write": WriteNoteTool(root), "run": RunCommandTool(),
            "stubborn": StubbornTool()}


FAST_RETRIES = RetryPolicy(initial_delay_s=0.01, max_delay_s=0.05)


@pytest.fixture
def make_session(gemini_server: FakeGeminiServer, root: Path, home: Path,
                 tools: dict[str, BaseTool]) -> Callable[..., Session]:
    def make(mode: ApprovalMode = ApprovalMode.default, interactive: bool = True, **settings: object) -> Session:
        registry = ToolRegistry()
        for tool in tools.values():
            registry.register(tool)
        model = GeminiModel("gemini-2.5-pro", "test-key", base_url=gemini_server.base_url, policy=FAST_RETRIES)
        session = Session(Settings(home=home, **settings), registry, model, root, EventBus(), approval_mode=mode,
                          interactive=interactive)
        session.saved.enable(SessionStore(project_dir(home / ".gemini", root)))
        return session

    return make


class EventLog:
    """Collects a session's events; answers confirmations with `answer` (or leaves them pending)."""

    def __init__(self, bus: EventBus, answer: Callable[[ConfirmationRequested], Decision | None] | None = None):
        self.events: list[Event] = []
        self.answer = answer
        self._iterator = bus.subscribe()
        self._task = asyncio.ensure_future(self._collect())

    async def _collect(self) -> None:
        async for event in self._iterator:
            self.events.append(event)
            if isinstance(event, ConfirmationRequested) and self.answer is not None:
                decision = self.answer(event)
                if decision is not None:
                    event.future.set_result(decision)

    def of(self, kind: type) -> list:
        return [e for e in self.events if isinstance(e, kind)]

    async def settle(self) -> None:
        """Lets the collector catch up with everything published so far."""
        for _ in range(5):
            await asyncio.sleep(0)


def always(outcome: ConfirmationOutcome, **kwargs: object) -> Callable[[ConfirmationRequested], Decision]:
    return lambda event: Decision(outcome, **kwargs)  # type: ignore[arg-type]
