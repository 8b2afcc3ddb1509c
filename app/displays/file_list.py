"""FileList: the paths a glob or read_many_files found, and what it skipped."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from gemini_tui.app.displays.factories import register_display
from gemini_tui.core.ground.display import FileList


class FileListDisplay(Static):
    def __init__(self, files: FileList) -> None:
        self.files = files
        lines = [Content.styled(files.title, "bold")]
        lines.extend(Content(f"  {path}") for path in files.paths)
        if not files.paths:
            lines.append(Content.styled("  (no files)", "$text-muted"))
        if files.skipped:
            lines.append(Content.styled(f"  skipped {len(files.skipped)}:", "$text-muted"))
            lines.extend(Content.styled(f"    {path}", "$text-muted") for path in files.skipped)
        super().__init__(Content("\n").join(lines), classes="display display-file-list")


register_display(FileList, FileListDisplay)
