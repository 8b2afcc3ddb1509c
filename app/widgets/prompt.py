"""The prompt: multi-line input (Enter sends, Shift+Enter/Ctrl+J newline), history, `@path`/`/command` completion."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import events, on
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option

from gemini_tui.app.widgets.completion import Candidate, complete_command, complete_path, token_at


class PromptInput(TextArea):
    """A TextArea that sends on Enter. Up/Down walk the history from the first/last line."""

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus",
                         compact=True, highlight_cursor_line=False,
                         placeholder="Ask anything · @file to attach · /command · !shell command")
        self.sent: list[str] = []
        self._history_index: int | None = None
        self._draft = ""

    @property
    def owner(self) -> PromptArea | None:
        parent = self.parent
        return parent if isinstance(parent, PromptArea) else None

    async def _on_key(self, event: events.Key) -> None:
        owner = self.owner
        if owner is not None and owner.completing and event.key == "enter":
            owner.refresh_completions()  # the list may lag the text (Changed is queued): a finished token sends
        if owner is not None and owner.completing and event.key in ("tab", "enter", "up", "down", "escape"):
            event.stop()
            event.prevent_default()
            owner.completion_key(event.key)
            return
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.submit()
            return
        if event.key in ("shift+enter", "ctrl+j"):
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if event.key == "up" and self.cursor_location[0] == 0 and self.sent:
            event.stop()
            event.prevent_default()
            self.history_step(-1)
            return
        if event.key == "down" and self.cursor_location[0] == self.document.line_count - 1 \
                and self._history_index is not None:
            event.stop()
            event.prevent_default()
            self.history_step(1)
            return
        await super()._on_key(event)

    def submit(self) -> None:
        text = self.text.strip()
        if not text:
            return
        if not self.sent or self.sent[-1] != text:
            self.sent.append(text)
        self._history_index = None
        self.clear()
        self.post_message(self.Submitted(text))

    def take_key(self, event: events.Key) -> None:
        """A key typed for the prompt reached a confirmation that was not listening yet: it goes where the user
        meant it (text, Backspace, and Enter, which sends the prompt: queued while the turn runs; other keys only
        wait)."""
        if event.key == "backspace":
            self.action_delete_left()
        elif event.key == "enter":
            self.submit()
        elif event.is_printable and event.character:
            self.insert(event.character)

    def history_step(self, step: int) -> None:
        if self._history_index is None:
            if step > 0:
                return
            self._draft = self.text
            index = len(self.sent) - 1
        else:
            index = self._history_index + step
        if index >= len(self.sent):
            self._history_index = None
            self.load_text(self._draft)
        else:
            self._history_index = max(0, index)
            self.load_text(self.sent[self._history_index])
        self.move_cursor(self.document.end)


class CompletionList(OptionList):
    """Candidates shown above the prompt; the prompt keeps focus and drives it with Tab/Enter/Up/Down."""

    can_focus = False


class PromptArea(Vertical):
    """The prompt with its completion list; `commands` gives the slash commands (name -> one-line help), asked for
    when first completed: the first frame does not wait for the commands' modules."""

    def __init__(self, root: Path, commands: Callable[[], dict[str, str]], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.root = root
        self._load_commands: Callable[[], dict[str, str]] | None = commands
        self._commands: dict[str, str] = {}
        self.resources: dict[str, str] = {}  # `server:uri` -> name: MCP resources, completed after `@`
        self.completions = CompletionList(classes="completions")
        self.completions.display = False
        self.input = PromptInput(id="prompt-input")
        self.candidates: list[Candidate] = []

    @property
    def commands(self) -> dict[str, str]:
        if self._load_commands is not None:
            load, self._load_commands = self._load_commands, None
            self._commands = load()
        return self._commands

    def set_session_commands(self, commands: dict[str, str], resources: dict[str, str]) -> None:
        """The session's own commands (`server:prompt`, custom ones) and MCP resources, completed like built-ins;
        a server that went away takes its prompts with it."""
        for name in [n for n in self.commands if ":" in n and n not in commands]:
            del self.commands[name]
        self.commands.update(commands)
        self.resources = resources

    def compose(self) -> Any:
        yield self.input  # the completion list is mounted above it when it first has something to show

    @property
    def completing(self) -> bool:
        return bool(self.completions.display and self.candidates)

    @on(TextArea.Changed, "#prompt-input")
    def text_changed(self) -> None:
        self.refresh_completions()

    @on(TextArea.SelectionChanged, "#prompt-input")
    def cursor_moved(self) -> None:
        if self.completing:
            self.refresh_completions()

    def current_token(self) -> tuple[int, int, str]:
        row, column = self.input.cursor_location
        line = self.input.document.get_line(row)
        start, token = token_at(line, column)
        return row, start, token

    def refresh_completions(self) -> None:
        row, start, token = self.current_token()
        if token.startswith("/") and row == 0 and start == 0:
            candidates = complete_command(token, self.commands)
        elif token.startswith("@"):
            candidates = complete_path(self.root, token) + [
                Candidate(f"@{mention} ", f"@{mention}  {name}") for mention, name in self.resources.items()
                if mention.startswith(token[1:])][:12]
        else:
            candidates = []
        # an exact, finished token needs no list
        if len(candidates) == 1 and candidates[0].replacement.rstrip() == token:
            candidates = []
        if not candidates and not self.candidates and not self.completions.display:
            return  # plain typing: the hidden list is left alone (clearing it would cost every key a second frame)
        self.candidates = candidates
        if self.completions.parent is None:  # the first frame does not style a list it never shows
            self.mount(self.completions, before=self.input)
        self.completions.clear_options()
        if candidates:
            self.completions.add_options([Option(c.label) for c in candidates])
            self.completions.highlighted = 0
        self.completions.display = bool(candidates)

    def completion_key(self, key: str) -> None:
        match key:
            case "up":
                self.completions.action_cursor_up()
            case "down":
                self.completions.action_cursor_down()
            case "escape":
                self.hide_completions()
            case _:
                self.accept_completion()

    def hide_completions(self) -> None:
        self.candidates = []
        self.completions.display = False

    def accept_completion(self) -> None:
        index = self.completions.highlighted or 0
        if not self.candidates:
            return
        candidate = self.candidates[index]
        row, start, token = self.current_token()
        self.input.replace(candidate.replacement, (row, start), (row, start + len(token)))
        if not candidate.replacement.endswith("/"):
            self.hide_completions()

    @on(OptionList.OptionSelected, ".completions")
    def clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.completions.highlighted = event.option_index
        self.accept_completion()
        self.input.focus()
