"""What one call needs, as its tool describes it: the words the policy decides on (tools never decide)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemini_tui.core.shell.grammar import ShellAnalysis


@dataclass(frozen=True)
class CallNeeds:
    """What one call needs, as its tool describes it. `read_only` calls change nothing."""

    read_only: bool = False
    edit: bool = False  # a file edit (write_file, replace): auto_edit runs it
    writes: tuple[str, ...] = ()  # absolute paths the call writes
    shell: ShellAnalysis | None = None
    mcp_server: str | None = None
    mcp_tool: str | None = None  # the tool's name on its server
    trusted_server: bool = False  # mcpServers.<name>.trust
    cwd: str | None = None  # where a command runs (relative paths in it are from there)
    escalation: str | None = None  # why a command asks to run outside the sandbox (None: it runs inside, or none)
    delegates: bool = False  # invoke_agent: nothing runs but the subagent's own calls, each decided on its own
