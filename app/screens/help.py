"""F1 help: the keys that work on the main screen, the diff review keys, and the slash commands."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from gemini_tui.app.widgets.key_bar import KeyBar

# The keys, as the README's keys table lists them, cell for cell (tests/app/test_help.py holds the two
# together and checks every key the app binds is in it): one description of each key, in one place.
KEYS: list[tuple[str, str]] = [
    ("`Enter` / `Shift+Enter`, `Ctrl+J`",
     "send the prompt (queued while a turn runs) / new line"),
    ("`Up` / `Down`",
     "prompt history (from the first / last line of the prompt); `Up` in an empty prompt with queued "
     "prompts takes the last one back"),
    ("`PageUp` / `PageDown`",
     "scroll the chat; the prompt keeps the focus"),
    ("`Home` / `End` (empty prompt), `Ctrl+Home` / `Ctrl+End`",
     "top / bottom of the chat"),
    ("any printable key",
     "typed into the prompt, wherever the focus is on the main screen"),
    ("`Tab` (or `Enter`)",
     "accept the highlighted `@path` or `/command` completion; `Esc` closes the list"),
    ("`Esc`",
     "cancel the running turn (partial text stays); while a prompt waits for MCP servers still "
     "connecting, send it now without their tools; with the history panel open, close it first; when "
     "idle, back to the prompt"),
    ("`Ctrl+T`",
     "hide or show the model's todo list (`write_todos`), beside the tool-call queue"),
    ("`Ctrl+X` (plan approval)",
     "open the plan waiting for approval in `$VISUAL`/`$EDITOR`; approving then tells the model the edited plan"),
    ("`Esc` `Esc` (idle)",
     "rewind: pick an earlier prompt, then files and conversation / conversation only / files only "
     "(`/rewind`)"),
    ("`Ctrl+C`",
     "the same on every screen: clear the prompt, else remove the last queued prompt, else cancel the "
     "turn (in the diff review: cancel the review and the turn); a press with none of these to do says "
     "\"Press Ctrl+C again to exit.\" and the next one within 2 s quits (`Ctrl+Q` quits too)"),
    ("`Shift+Tab` / `Ctrl+Y`",
     "cycle the approval mode default → auto_edit → plan / toggle yolo (refused under "
     "`security.disableYoloMode`)"),
    ("`Ctrl+B`",
     "tool history panel: type to filter, `Enter` opens the details of the highlighted call (the first"
     " match), `Down` / `Up` move in the list, `Ctrl+R` shows one agent's calls (`agent:NAME` in the filter),"
     " `Esc` closes it"),
    ("`Ctrl+P` / `F1`",
     "command palette / help"),
    ("`Ctrl+N` / `Alt+←` `Alt+→`, `Ctrl+PageUp` `Ctrl+PageDown` / `Ctrl+O`",
     "several sessions in one window (`/session`): open another / the previous, the next / pick one from the list"),
    ("`Ctrl+G`",
     "waiting on you: every question a session or subagent waits for; `Enter` goes there and asks it"),
    ("`y` `a` `A` `n` `Esc` `r`",
     "the same in every confirmation (inline, diff review, trust question, rewind, loop question): allow once, "
     "allow for the session, allow always in this folder, reject, reject, reject with a reason (the model is "
     "told it); `s` allows every tool of an MCP server; the trust question has `y` trust, `p` trust the "
     "parent, `n` don't trust, `Esc` not now"),
    ("`]` `[` `w` `v` `←` `→` `u`",
     "in the diff review: next/previous change, wrap on/off, unified/side by side, scroll sideways, "
     "re-read the file (after a change on disk, `u` is what turns approval back on); in its editor `Esc` goes "
     "back to the diff"),
    ("`space` `j` `k` `e` `Ctrl+E` `Ctrl+S`",
     "in the diff review: accept/reject the hunk, next/previous hunk, edit here, edit in "
     "`$VISUAL`/`$EDITOR`, apply the edit made here"),
]

TYPING_NOTE = ("A confirmation takes keys only once you have stopped typing for 0.6 s; what you type before "
               "that goes to the prompt.")

PROMPT_FORMS = [
    ("@path", "send the file (or folder) along with the prompt, read through read_many_files"),
    ("!command", "run a shell command (asks first, like any command)"),
]

# CommonMark lets a backslash escape any ASCII punctuation: escaped, a help text is shown as written (a `|`
# no longer splits its table row, `<name>` is no longer taken for an HTML tag and dropped, `*` stays a star)
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def text_cell(text: str) -> str:
    """Plain text as a Markdown table cell that reads exactly `text` (on one line)."""
    return _PUNCTUATION.sub(r"\\\1", " ".join(text.split()))


def code_cell(text: str) -> str:
    """`text` as a code span in a table cell: a `|` inside is escaped (a table splits on it even inside code),
    and the span's backtick fence is longer than any run of backticks in the text."""
    text = " ".join(text.split())
    fence = "`" * (1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    escaped = text.replace("|", "\\|")
    return f"{fence}{pad}{escaped}{pad}{fence}"


def help_markdown(custom: dict[str, str] | None = None, commands: Sequence[tuple[str, str]] = ()) -> str:
    """The help page: the keys, the prompt's forms, the slash `commands` (usage, help) and the `custom` ones."""
    def table(rows: list[tuple[str, str]], head: str = "key") -> list[str]:
        return [f"| {head} | what it does |", "|---|---|", *(f"| {key} | {what} |" for key, what in rows)]

    def plain(rows: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
        return [(code_cell(key), text_cell(what)) for key, what in rows]

    return "\n".join([
        "# gemini-tui help", "", "## Keys", *table(KEYS), "", TYPING_NOTE, "",
        "## In the prompt", *table(plain(PROMPT_FORMS)), "",
        "## Slash commands", *table(plain(commands), "command"), "",
        *(["## Custom commands", *table(plain([(f"/{n}", h) for n, h in custom.items()]), "command"), ""]
          if custom else []),
        "Press `Esc`, `q` or `F1` to close.",
    ])


class HelpScreen(ModalScreen[None]):
    """`commands`: the slash commands as (usage, help); `custom`: the session's own commands (custom commands, MCP
    prompts), name -> help. Both are given by the app: a modal does not reach up into the commands."""

    def __init__(self, custom: dict[str, str] | None = None, commands: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__()
        self.custom = custom or {}
        self.commands = commands

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close"),
        Binding("q", "dismiss", "Close", show=False),
        Binding("f1", "dismiss", "Close", show=False),
    ]

    def compose(self) -> Any:
        with VerticalScroll(id="help-body"):
            yield Markdown(help_markdown(self.custom, self.commands), id="help-text")
        yield KeyBar()  # over the main screen's bar, whose keys do not work while the help is open

    def action_dismiss(self, result: None = None) -> None:  # type: ignore[override]
        self.dismiss(None)
