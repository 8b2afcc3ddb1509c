"""The ACP front end's terminal: when the client advertises `terminal`, run_shell_command runs its (approved,
sandbox-wrapped) command line in the client's terminal through `terminal/create`, `wait_for_exit`, `output`, `kill`
and `release`, and the running call shows that terminal."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from acp.schema import EnvVariable

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.tools.shell.client_terminal import TerminalOutcome

log = logging.getLogger(__name__)

OUTPUT_LIMIT = 64_000  # bytes the client keeps (the end of the output), as our own runs cap theirs
KILL_GRACE_S = 10.0


class AcpTerminal:
    """tools.shell.client_terminal.ClientTerminal over one ACP session. `shown(terminal_id)` puts the terminal on
    the running call (a tool_call_update), so the editor shows its live output."""

    def __init__(self, client: Any, session_id: Callable[[], str],
                 shown: Callable[[str], Awaitable[None]]) -> None:
        self._client = client
        self._session_id = session_id
        self._shown = shown

    async def run(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str], abort_signal: AbortSignal,
                  on_output: Callable[[str], None] | None) -> TerminalOutcome:
        sid = self._session_id()
        created = await self._client.create_terminal(
            session_id=sid, command=argv[0], args=list(argv[1:]), cwd=str(cwd),
            env=[EnvVariable(name=k, value=v) for k, v in env.items()], output_byte_limit=OUTPUT_LIMIT)
        terminal_id = created.terminal_id
        try:
            with contextlib.suppress(Exception):
                await self._shown(terminal_id)
            exited = asyncio.ensure_future(self._client.wait_for_terminal_exit(session_id=sid,
                                                                               terminal_id=terminal_id))
            aborted = asyncio.ensure_future(abort_signal.wait())
            try:
                await asyncio.wait({exited, aborted}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                aborted.cancel()
            cancelled = not exited.done()
            if cancelled:
                with contextlib.suppress(Exception):
                    await self._client.kill_terminal(session_id=sid, terminal_id=terminal_id)
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.shield(exited), KILL_GRACE_S)
            status = exited.result() if exited.done() and not exited.cancelled() and not exited.exception() else None
            if not exited.done():
                exited.cancel()
            output = await self._client.terminal_output(session_id=sid, terminal_id=terminal_id)
            if on_output is not None and output.output:
                on_output(output.output)
            return TerminalOutcome(output.output, getattr(status, "exit_code", None), getattr(status, "signal", None),
                                   cancelled, bool(output.truncated))
        finally:
            try:
                await self._client.release_terminal(session_id=sid, terminal_id=terminal_id)
            except Exception as exc:
                log.debug("ACP: terminal/release failed: %s", exc)
