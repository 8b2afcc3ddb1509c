"""`/name args` for a custom command or an MCP server's prompt: its prompt expanded (files read, commands run
through the scheduler, so asked like any other), then sent as the user's prompt."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.events import ErrorOccurred, TurnEndReason, TurnFinished, TurnStarted
from gemini_tui.core.ground.parts import Part
from gemini_tui.core.session.scheduler import Scheduler
from gemini_tui.core.session.state import SessionState
from gemini_tui.core.tooling.registry import ToolRegistry

if TYPE_CHECKING:
    from gemini_tui.core.setup.custom_commands import CustomCommand


class CommandPrompts:
    """Expands a command line with the session's `commands` and hands the prompt to `send`. `wait_for_servers`
    (None: no MCP servers) is awaited, bounded, when the name is not known yet: a server's prompts come late."""

    def __init__(self, state: SessionState, registry: ToolRegistry, scheduler: Scheduler,
                 commands: dict[str, CustomCommand], send: Callable[[list[Part]], Awaitable[TurnEndReason]],
                 wait_for_servers: Callable[[], Awaitable[None]] | None) -> None:
        self.state = state
        self.registry = registry
        self.scheduler = scheduler
        self.commands = commands
        self.send = send
        self.wait_for_servers = wait_for_servers

    async def send_command(self, line: str) -> TurnEndReason | None:
        """The command's prompt sent; None when `line` names no such command. A failed expansion (a refused
        command, a missing file, a server's error) is a failed turn: said, nothing sent."""
        from gemini_tui.core.setup.custom_commands import CommandError, expand, split_invocation

        name, args = split_invocation(line)
        if name not in self.commands and self.wait_for_servers is not None:
            await self.wait_for_servers()
        command = self.commands.get(name)
        if command is None:
            return None
        abort = self.state.abort = AbortSignal()
        try:
            if (server_expand := getattr(command, "expand", None)) is not None:  # an MCP prompt: the server writes
                try:
                    parts = await server_expand(args)
                except Exception as exc:  # bad arguments, a server gone or failing: said, nothing sent
                    raise CommandError(str(exc) or type(exc).__name__) from exc
            else:
                parts = await expand(command, args, line, registry=self.registry, run_calls=self.scheduler.run,
                                     abort=abort)
        except CommandError as exc:
            # a whole (failed) turn, so every front end ends it as it ends any other
            prompt_id, bus = uuid.uuid4().hex[:12], self.state.bus
            message = f"/{name} was not sent: {exc}"
            bus.publish(TurnStarted(prompt_id, line))
            bus.publish(ErrorOccurred(message, "command_failed"))
            bus.publish(TurnFinished(prompt_id, TurnEndReason.error, message))
            return TurnEndReason.error
        finally:
            self.state.abort = None
        return await self.send(parts)
