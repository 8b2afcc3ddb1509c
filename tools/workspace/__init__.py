"""The one gate every tool goes through: paths resolved and kept inside the root, ignore rules, file types,
and the writes that keep a file's encoding and line endings.

- `gate`: `Workspace` (resolve and check a path, walk the tree), file-type sniffing.
- `ignore_rules`: `.gitignore` / `.geminiignore` / default excludes, compiled once per directory.
- `glob_pattern`: the one glob compiler (glob, search includes, ignore rules, read_many_files).
- `text_file`: reading text in its encoding and `write_bytes_atomic`.
- `confined`: reads and writes walked from the root by directory descriptors, so no link can redirect them.
"""

from gemini_tui.tools.workspace.gate import (
    DEFAULT_EXCLUDED_DIRS,
    DEFAULT_EXCLUDED_FILES,
    IGNORE_FILES,
    FileType,
    FoundFile,
    Workspace,
    WorkspaceError,
    mime_type_of,
    sniff_bytes,
    sniff_file,
)

__all__ = [
    "DEFAULT_EXCLUDED_DIRS",
    "DEFAULT_EXCLUDED_FILES",
    "IGNORE_FILES",
    "FileType",
    "FoundFile",
    "Workspace",
    "WorkspaceError",
    "mime_type_of",
    "sniff_bytes",
    "sniff_file",
]
