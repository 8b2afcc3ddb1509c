"""The model's standing instructions: the system prompt and every GEMINI.md, read on first use and on refresh."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gemini_tui.core.ground.events import Notice
from gemini_tui.core.setup.config import Settings
from gemini_tui.core.setup.context import Memory, load_memory

SYSTEM_PROMPT = """You are gemini-tui, an agent working in a terminal on the user's project.
The project root is {root}. Every path you pass to a tool must be absolute and inside the root.
Use the tools to look before you change anything: list directories, read files, search. Keep edits small and
exact (the `replace` tool needs the exact text to replace, with enough context to be unique). Explain briefly
what you did. The user reviews edits and commands before they run and may reject or change them: respect that.
"""


class ContextMemory:
    """GEMINI.md files of the root, the home, the workspace's other directories (`include_dirs`, shared with the
    session, which widens it) and extensions (`extra_files`: each with the directory its imports may read)."""

    def __init__(self, settings: Settings, root: Path, report: Callable[[Notice], None], include_dirs: list[Path],
                 extra_files: list[tuple[Path, Path]]) -> None:
        """`report` tells a problem (a broken import) to the session's notices: kept for a front end that
        subscribes later, so it is said at start however early it was found."""
        self.settings = settings
        self.root = root
        self.report = report
        self.include_dirs = include_dirs
        self.extra_files = extra_files
        self._memory: Memory | None = None

    @property
    def memory(self) -> Memory:
        """What every GEMINI.md says, as the model reads it (read on first use)."""
        return self._memory if self._memory is not None else self.refresh()

    def refresh(self) -> Memory:
        """Re-reads every GEMINI.md (`/memory refresh`, after save_memory)."""
        before = set(self._memory.problems) if self._memory is not None else set()
        self._memory = load_memory(self.root, self.settings.home, self.settings.context_file_names,
                                   include_dirs=self.include_dirs, extra_files=self.extra_files)
        for problem in self._memory.problems:
            if problem not in before:  # said once, not at every reload
                self.report(Notice(f"GEMINI.md import: {problem}", "warning"))
        return self._memory

    def system_instruction(self) -> str:
        memory = self.memory
        prompt = SYSTEM_PROMPT.format(root=self.root)
        if not memory.text:
            return prompt
        return f"{prompt}\n# Context from the user's GEMINI.md files\n\n{memory.text}\n"
