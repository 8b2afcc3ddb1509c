"""The Textual App and `run(...)`, the entry the CLI calls to start the full-screen app."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from app.commands import GeminiCommands

if TYPE_CHECKING:
    from core.session import Session

STYLES = Path(__file__).resolve().parent.parent / "styles"


class GeminiApp(App[int]):
    """The app around one `Session`; everything it shows comes from the session's event bus."""

    TITLE = "gemini-tui"
    CSS_PATH: ClassVar = [STYLES / "app.tcss", STYLES / "chat.tcss", STYLES / "prompt.tcss",
                          *[path for path in (STYLES / "diff_review.tcss", STYLES / "history.tcss",
                                              STYLES / "displays.tcss") if path.exists()]]
    COMMANDS: ClassVar = App.COMMANDS | {GeminiCommands}
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+q", "quit", "Quit", show=False, priority=True)]

    def __init__(self, session: Session, root: Path | None = None) -> None:
        super().__init__()
        self.session = session
        self.root = (root or Path.cwd()).resolve()

    def on_mount(self) -> None:
        from app.screens.main_screen import MainScreen

        self.push_screen(MainScreen(self.session, self.root))

    def action_help(self) -> None:
        from app.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())


def run(session: Session, root: Path | None = None) -> int:
    """Run the app until the user quits; returns the process exit code."""
    app = GeminiApp(session, root)
    result = app.run()
    return result if isinstance(result, int) else (app.return_code or 0)
