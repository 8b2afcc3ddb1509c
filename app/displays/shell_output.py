"""ShellOutput: a command's output with its ANSI colours, appended live while it runs, then its exit status."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import RichLog, Static

from gemini_tui.app.displays.factories import register_display
from gemini_tui.core.ground.display import ShellOutput

MAX_LINES = 5000  # older lines scroll away; the full output went to the model (or a file)


class ShellOutputDisplay(Vertical):
    """Create it with the final `ShellOutput`, or with just the command and feed it `append(chunk)` live,
    then `finish(output)`."""

    def __init__(self, output: ShellOutput | None = None, *, command: str = "") -> None:
        super().__init__(classes="display display-shell")
        self.command = output.command if output else command
        self.result: ShellOutput | None = None
        self.header = Static(self._header(None), classes="display-shell-header")
        self.log_view = RichLog(max_lines=MAX_LINES, wrap=True, markup=False, highlight=False,
                                classes="display-shell-log")
        self._pending = ""
        self.lines_written = 0
        if output is not None:
            self.append(output.output)
            self.finish(output)

    def compose(self) -> ComposeResult:
        yield self.header
        yield self.log_view

    def append(self, chunk: str) -> None:
        """Live output; a partial last line waits for its newline (or for `finish`)."""
        text = self._pending + chunk
        *complete, self._pending = text.split("\n")
        for line in complete:
            self._write(line)

    def finish(self, output: ShellOutput) -> None:
        if self._pending:
            self._write(self._pending)
            self._pending = ""
        self.result = output
        self.header.update(self._header(output))
        self.set_class(output.exit_code not in (0, None) or output.timed_out or output.cancelled, "-failed")

    def _write(self, line: str) -> None:
        line = line.rstrip("\r")
        if "\r" in line:  # a progress bar redrew this line: keep what it ended as
            line = line.rsplit("\r", 1)[-1]
        self.log_view.write(Text.from_ansi(line))
        self.lines_written += 1

    def _header(self, output: ShellOutput | None) -> Content:
        parts: list[str | tuple[str, str]] = [("$ ", "$text-muted"), (self.command, "bold")]
        if output is None:
            parts.append(("  running…", "$text-muted"))
            return Content.assemble(*parts)
        if output.timed_out:
            parts.append(("  timed out", "$text-error"))
        elif output.cancelled:
            parts.append(("  cancelled", "$text-warning"))
        elif output.signal:
            parts.append((f"  killed by {output.signal}", "$text-error"))
        elif output.exit_code is not None:
            parts.append((f"  exit {output.exit_code}", "$text-success" if output.exit_code == 0 else "$text-error"))
        if output.directory:
            parts.append((f"  in {output.directory}", "$text-muted"))
        if output.background_pids:
            parts.append((f"  background pids {', '.join(map(str, output.background_pids))}", "$text-muted"))
        if output.saved_to:
            parts.append((f"  full output: {output.saved_to}", "$text-muted"))
        return Content.assemble(*parts)


register_display(ShellOutput, ShellOutputDisplay)
