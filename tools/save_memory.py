"""save_memory: a fact appended under `## Gemini Added Memories` in the user's `~/.gemini/GEMINI.md`."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import Field

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import InfoConfirmation
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.tooling.needs import CallNeeds
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams
from gemini_tui.tools.workspace.text_file import TextFile, read_text, write_text

log = logging.getLogger(__name__)

MEMORY_SECTION = "## Gemini Added Memories"
MEMORY_FILE = "GEMINI.md"


class SaveMemoryParams(ToolParams):
    fact: str = Field(description="The specific fact or piece of information to remember. Should be a clear, "
                                  "self-contained statement.")


_LEADING_DASHES = re.compile(r"^(?:-+\s*)+")


def clean_fact(fact: str) -> str:
    """The fact on one line without the list dashes a model puts before it (`- - fact` is stored as `- fact`)."""
    return _LEADING_DASHES.sub("", " ".join(fact.split())).strip()


def add_fact(content: str, fact: str) -> str:
    """`content` with `- fact` at the end of the memories section, creating the section at the end if needed.

    The section ends at the next heading of level 1 or 2 (or the end of the file)."""
    item = f"- {clean_fact(fact)}"
    lines = content.split("\n")
    start = next((i for i, line in enumerate(lines) if line.strip() == MEMORY_SECTION), None)
    if start is None:
        body = content.rstrip("\n")
        prefix = f"{body}\n\n" if body else ""
        return f"{prefix}{MEMORY_SECTION}\n{item}\n"
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(("# ", "## "))), len(lines))
    insert_at = end
    while insert_at > start + 1 and not lines[insert_at - 1].strip():  # before the blank lines ending it
        insert_at -= 1
    lines.insert(insert_at, item)
    result = "\n".join(lines)
    return result if result.endswith("\n") else result + "\n"


class SaveMemoryTool(BaseTool[SaveMemoryParams]):
    name = "save_memory"
    display_name = "SaveMemory"
    description = (
        "Saves a specific piece of information or fact to your long-term memory. Use this when the user "
        "explicitly asks you to remember something, or states a clear, concise fact about themselves or their "
        "preferences that seems important to retain for future interactions. Do not use it for conversational "
        "context that is only relevant to the current session."
    )
    Params = SaveMemoryParams
    kind = ToolKind.think

    def __init__(self, gemini_dir: Path, on_saved: Callable[[], Any] | None = None,
                 file_name: str = MEMORY_FILE) -> None:
        """`gemini_dir` is the user's `.gemini` directory (injectable, so tests never touch the real one);
        `on_saved` reloads the context after a fact was written; `file_name` is the first of `context.fileName`
        (the context reads only those names, so a fact saved under another one would never come back)."""
        self.gemini_dir = Path(gemini_dir)
        self.on_saved = on_saved
        self.file_name = file_name

    @property
    def memory_file(self) -> Path:
        return self.gemini_dir / self.file_name

    def check_params(self, params: SaveMemoryParams) -> ToolError | None:
        if not clean_fact(params.fact):
            return ToolError(ToolErrorKind.invalid_params, 'Parameter "fact" must be a non-empty string.')
        return None

    def needs(self, params: SaveMemoryParams) -> CallNeeds:
        # the memory is read into the model's instructions: a protected file, so the policy asks
        return CallNeeds(writes=(str(self.memory_file),))

    async def should_confirm_execute(self, params: SaveMemoryParams,
                                     abort_signal: AbortSignal) -> InfoConfirmation:
        return InfoConfirmation(title="Confirm Save Memory", prompt=(
            f"Add this fact to {self.memory_file} (read into the model's instructions every session):\n"
            f"{params.fact.strip()}"))

    def get_description(self, params: SaveMemoryParams) -> str:
        return f"in ~/.gemini/{self.file_name}: {clean_fact(params.fact)}"

    def _save(self, fact: str) -> None:
        # ~/.gemini is the root of this write: the same descriptor walk as the workspace tools
        path = self.memory_file
        self.gemini_dir.mkdir(parents=True, exist_ok=True)
        existing: TextFile | None = read_text(path, root=self.gemini_dir) if path.exists() else None
        write_text(path, add_fact(existing.content if existing else "", fact), like=existing, root=self.gemini_dir)

    async def _execute(self, params: SaveMemoryParams, abort_signal: AbortSignal,
                       context: CallContext) -> ToolResult:
        fact = clean_fact(params.fact)
        try:
            await asyncio.to_thread(self._save, fact)
        except OSError as exc:
            return ToolResult.failure(ToolErrorKind.execution_failed,
                                      f"Failed to save memory to {self.memory_file}: {exc}")
        if self.on_saved is not None:
            try:
                outcome = self.on_saved()
                if asyncio.iscoroutine(outcome):
                    await outcome
            except Exception:  # the fact is saved; a failed reload must not turn that into an error
                log.exception("reloading the context after save_memory failed")
        return ToolResult(f'Okay, I\'ve remembered that: "{fact}"', f'Remembered: "{fact}"')
