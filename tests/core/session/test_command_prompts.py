"""CommandPrompts alone: a command line expanded and handed to `send`, or, when its expansion fails, one whole
failed turn on the bus with nothing sent; an unknown name waits (once) for MCP servers that may bring it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gemini_tui.core.ground.events import ErrorOccurred, Event, EventBus, TurnEndReason, TurnFinished, TurnStarted
from gemini_tui.core.ground.parts import Part, TextPart
from gemini_tui.core.ground.stats import SessionStats
from gemini_tui.core.session.command_prompts import CommandPrompts
from gemini_tui.core.session.scheduler import Scheduler
from gemini_tui.core.session.state import SessionState
from gemini_tui.core.setup.custom_commands import CustomCommand
from gemini_tui.core.tooling.registry import ToolRegistry


class ServerPrompt:
    """An MCP server's prompt as the session holds it: the server writes the text (here: fails as told)."""

    def __init__(self, error: Exception | None) -> None:
        self.error = error

    async def expand(self, args: str) -> list[Part]:
        if self.error is not None:
            raise self.error
        return [TextPart(f"from the server: {args}")]


def prompts(root: Path, commands: dict[str, object]) -> tuple[CommandPrompts, list[list[Part]], list[int],
                                                               list[Event]]:
    state = SessionState(root, EventBus())
    registry = ToolRegistry()
    sent: list[list[Part]] = []
    waits: list[int] = []
    events: list[Event] = []
    state.bus.tap(events.append)

    async def send(parts: list[Part]) -> TurnEndReason:
        sent.append(parts)
        return TurnEndReason.completed

    async def wait_for_servers() -> None:
        waits.append(1)

    scheduler = Scheduler(registry, state.bus, SessionStats(), interactive=False)
    return (CommandPrompts(state, registry, scheduler, commands, send, wait_for_servers),  # type: ignore[arg-type]
            sent, waits, events)


async def test_a_command_file_is_expanded_and_sent(root: Path) -> None:
    command = CustomCommand("greet", "", "Say hello to {{args}}.", root / "greet.toml", "project")
    runner, sent, waits, events = prompts(root, {"greet": command})
    assert await runner.send_command("/greet the team") is TurnEndReason.completed
    assert sent == [[TextPart("Say hello to the team.")]] and waits == [] and events == []
    assert runner.state.abort is None


@pytest.mark.parametrize(("error", "said"), [
    (ValueError("missing argument 'topic'"), "missing argument 'topic'"),
    (ConnectionError(), "ConnectionError"),  # an error without words is named
])
async def test_a_failed_expansion_is_one_failed_turn_and_sends_nothing(root: Path, error: Exception,
                                                                       said: str) -> None:
    runner, sent, _, events = prompts(root, {"srv:ask": ServerPrompt(error)})
    assert await runner.send_command("/srv:ask x") is TurnEndReason.error
    await asyncio.sleep(0)
    assert sent == []
    message = f"/srv:ask was not sent: {said}"
    assert [type(e) for e in events] == [TurnStarted, ErrorOccurred, TurnFinished]
    assert isinstance(events[1], ErrorOccurred) and events[1].message == message
    assert isinstance(events[2], TurnFinished) and events[2].reason is TurnEndReason.error


async def test_an_unknown_name_waits_for_the_servers_then_is_none(root: Path) -> None:
    runner, sent, waits, _ = prompts(root, {"srv:ask": ServerPrompt(None)})
    assert await runner.send_command("/nothing here") is None
    assert waits == [1] and sent == []
    assert await runner.send_command("/srv:ask now") is TurnEndReason.completed  # a known one does not wait
    assert waits == [1] and sent == [[TextPart("from the server: now")]]
