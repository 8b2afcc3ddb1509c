"""run_shell_command in a client's terminal: the protocol a front end implements (an ACP client's `terminal/*`) and
what a run there ends with. The command line it gets is already wrapped by the sandbox and approved by the policy."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from gemini_tui.core.ground.abort import AbortSignal


@dataclass(frozen=True)
class TerminalOutcome:
    output: str
    exit_code: int | None = None
    signal: str | None = None
    cancelled: bool = False
    truncated: bool = False


class ClientTerminal(Protocol):
    async def run(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str], abort_signal: AbortSignal,
                  on_output: Callable[[str], None] | None) -> TerminalOutcome:
        """Runs `argv` in `cwd` with `env` added to the terminal's own environment, until it exits or
        `abort_signal` fires (then it is killed and `cancelled` is set)."""
        ...
