"""What a command line means: the bash grammar that reads it (tree-sitter-bash, `grammar`), the table of what each
program can do with each option (`table`), how words expand (`words`), and the judge that reads a command's words
against its row (`judge`). Runs nothing: the sandbox and child processes are `processes`' room, below this one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemini_tui.core.ground.lazy_face import lazy_face

if TYPE_CHECKING:
    from gemini_tui.core.shell.grammar import ShellAnalysis, analyze

__all__ = ["ShellAnalysis", "analyze"]

__getattr__ = lazy_face(__name__, {
    "gemini_tui.core.shell.grammar": ("ShellAnalysis", "analyze"),
})
