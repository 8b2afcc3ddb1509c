"""F1 help: the keys that work on the main screen, the diff review keys, and the slash commands."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from gemini_tui.app.slash_commands import COMMANDS
from gemini_tui.app.widgets.key_bar import KeyBar

KEYS = [
    ("Enter", "send the prompt"),
    ("Shift+Enter / Ctrl+J", "new line in the prompt"),
    ("Up / Down", "prompt history (from the first / last line)"),
    ("Tab", "accept a completion of @path or /command"),
    ("Esc", "cancel the running turn"),
    ("Ctrl+C", "clear the prompt or cancel the turn; twice quits"),
    ("Shift+Tab", "cycle the approval mode: default → auto_edit → plan (read-only tools only)"),
    ("Ctrl+Y", "toggle yolo (run every tool without asking; not when security.disableYoloMode is set)"),
    ("Ctrl+B", "tool history side panel (type to filter, Enter for details)"),
    ("Ctrl+P", "command palette"),
    ("F1", "this help"),
    ("Ctrl+Q", "quit"),
]

REVIEW_KEYS = [
    ("y", "allow once"),
    ("a", "allow for the session"),
    ("A", "allow always in this folder (kept in ~/.gemini/grants.json; /permissions lists and revokes)"),
    ("n", "reject, then an optional reason for the model"),
    ("e", "edit the new content before applying (diff review)"),
    ("j / k, arrows", "move between hunks (diff review)"),
    ("space", "accept or reject the hunk under the cursor (diff review)"),
    ("s", "unified / side-by-side view (diff review)"),
    ("Esc", "reject"),
    ("(typing)", "a confirmation takes keys only once you have stopped typing for 0.6 s; text typed before "
                 "that goes to the prompt"),
]

PROMPT_FORMS = [
    ("@path", "send the file (or folder) along with the prompt, read through read_many_files"),
    ("!command", "run a shell command (asks first, like any command)"),
]


def help_markdown(custom: dict[str, str] | None = None) -> str:
    def table(rows: list[tuple[str, str]]) -> list[str]:
        return ["| key | what it does |", "|---|---|", *(f"| `{key}` | {what} |" for key, what in rows)]

    commands = [(cmd.usage, cmd.help) for cmd in COMMANDS.values()]
    return "\n".join([
        "# gemini-tui help", "", "## Keys", *table(KEYS), "",
        "## Confirmations", *table(REVIEW_KEYS), "",
        "## In the prompt", *table(PROMPT_FORMS), "",
        "## Slash commands", *table(commands), "",
        *(["## Custom commands", *table([(f"/{n}", h) for n, h in custom.items()]), ""] if custom else []),
        "Press `Esc`, `q` or `F1` to close.",
    ])


class HelpScreen(ModalScreen[None]):
    """`custom`: the session's own commands (custom commands, MCP prompts), name -> help."""

    def __init__(self, custom: dict[str, str] | None = None) -> None:
        super().__init__()
        self.custom = custom or {}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close"),
        Binding("q", "dismiss", "Close", show=False),
        Binding("f1", "dismiss", "Close", show=False),
    ]

    def compose(self) -> Any:
        with VerticalScroll(id="help-body"):
            yield Markdown(help_markdown(self.custom), id="help-text")
        yield KeyBar()  # over the main screen's bar, whose keys do not work while the help is open

    def action_dismiss(self, result: None = None) -> None:  # type: ignore[override]
        self.dismiss(None)
