"""What a command line means: the bash grammar that reads it (tree-sitter-bash, `grammar`), the table of what each
program can do with each option (`table`), how words expand (`words`), and the judge that reads a command's words
against its row (`judge`). Runs nothing: the sandbox and child processes are `processes`' room, below this one."""

from gemini_tui.core.shell.grammar import ShellAnalysis, analyze

__all__ = ["ShellAnalysis", "analyze"]
