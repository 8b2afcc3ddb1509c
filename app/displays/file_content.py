"""FileContent: a file that was read, highlighted by its name, with line numbers."""

from __future__ import annotations

from textual.content import Content
from textual.highlight import highlight
from textual.widgets import Static

from gemini_tui.app.displays.factories import register_display
from gemini_tui.core.ground.display import FileContent

MAX_LINES_SHOWN = 2000  # the card is a preview; the model got the whole text


class FileContentDisplay(Static):
    def __init__(self, file: FileContent) -> None:
        self.file = file
        lines = file.content.splitlines()
        hidden = max(0, len(lines) - MAX_LINES_SHOWN)
        code = highlight("\n".join(lines[:MAX_LINES_SHOWN]), path=file.path) if lines else Content("")
        last = file.first_line + min(len(lines), MAX_LINES_SHOWN)
        width = len(str(last))
        numbered = [
            Content.assemble((f"{number:>{width}} ", "$text-muted"), line)
            for number, line in enumerate(code.split("\n", allow_blank=True), file.first_line)
        ][: len(lines)]
        header = file.path
        if file.truncated and file.total_lines:
            header += f"  (lines {file.first_line}-{file.first_line + len(lines) - 1} of {file.total_lines})"
        parts = [Content.styled(header, "bold"), *numbered]
        if hidden:
            parts.append(Content.styled(f"… {hidden} more lines", "$text-muted"))
        super().__init__(Content("\n").join(parts), classes="display display-file")


register_display(FileContent, FileContentDisplay)
