"""What a tool asks the user before it runs, and what the user answers (Gemini CLI's approval outcomes)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # an annotation only: the display types are not needed to ask
    from gemini_tui.core.ground.display import FileDiff


class ConfirmationOutcome(StrEnum):
    proceed_once = "proceed_once"
    proceed_always = "proceed_always"  # this tool (for shell: these root commands) for the session
    proceed_always_and_save = "proceed_always_and_save"  # the same, kept for this workspace in ~/.gemini
    proceed_always_server = "proceed_always_server"  # MCP: every tool of this server for the session
    proceed_always_tool = "proceed_always_tool"  # MCP: this tool of this server for the session
    modify = "modify"  # the user changed the content; it is applied instead and the model is told
    cancel = "cancel"


class EditUnavailable(Exception):
    """What an `EditConfirmation.refresh` raises when the edit under review can no longer be made, and why.

    `kind` is one of KINDS; `reason` says it in words that follow the file's name, for the user and the model
    alike ("was deleted", "is now a directory", "changed on disk and the edit no longer applies (...)")."""

    KINDS = ("deleted", "changed", "created", "directory", "link", "special", "read_only", "not_text",
             "unreadable")

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


@dataclass(frozen=True)
class EditConfirmation:
    """A change to a file, reviewed as a diff. `refresh` recomputes it when the file changes on disk (raising
    `EditUnavailable` when the edit can no longer be made)."""

    title: str
    file_path: str
    file_diff: FileDiff
    refresh: Callable[[], Awaitable[FileDiff]] | None = None


@dataclass(frozen=True)
class ExecConfirmation:
    """A shell command. `root_commands` are the real commands of the line ("allow for this session" grants
    them); `opaque` names what in it is only known when it runs (`eval`, `bash -c`, ...), and
    `hidden_commands` says there is such a thing: the policy never lets such a line run unasked."""

    title: str
    command: str
    root_commands: tuple[str, ...]
    directory: str = ""
    hidden_commands: bool = False
    opaque: tuple[str, ...] = ()


@dataclass(frozen=True)
class McpConfirmation:
    title: str
    server_name: str
    tool_name: str
    tool_display_name: str
    arguments: str = ""


@dataclass(frozen=True)
class QuestionOption:
    label: str
    description: str = ""


@dataclass(frozen=True)
class Question:
    """One question of `ask_user`: `kind` is Gemini CLI's `type` (choice, text, yesno)."""

    question: str
    header: str = ""
    kind: str = "choice"
    options: tuple[QuestionOption, ...] = ()
    multi_select: bool = False
    placeholder: str = ""


@dataclass(frozen=True)
class InfoConfirmation:
    """A yes/no about something that is not a file, a command or a server. Two kinds carry more: leaving plan
    mode (`plan_path`: the plan the user approves, `prompt` its text) and `ask_user` (`questions`, answered in
    the Decision's `answers`). A front end that knows neither still shows the title and the prompt."""

    title: str
    prompt: str
    urls: tuple[str, ...] = ()
    plan_path: str = ""
    questions: tuple[Question, ...] = ()


ConfirmationDetails = EditConfirmation | ExecConfirmation | McpConfirmation | InfoConfirmation


@dataclass(frozen=True)
class Decision:
    """The user's answer. With `modify`, `new_content` replaces the proposed content of an edit and
    `feedback` says what changed (for example which hunks were rejected); with `cancel`, `feedback` is the
    optional reason passed to the model."""

    outcome: ConfirmationOutcome
    new_content: str | None = None
    feedback: str | None = None
    # for edits: the diff the user last saw (its `original_content` is what the tool may overwrite)
    file_diff: FileDiff | None = None
    # what the front end observed, told to the model as a fact and never as the user's words (a file changed
    # on disk while its edit was under review)
    note: str | None = None
    # ask_user: each answered question's index (as a string, as Gemini CLI keys them) and the answer
    answers: dict[str, str] | None = None
