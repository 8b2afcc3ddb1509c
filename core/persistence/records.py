"""What one saved session holds, line by line: the JSON shape of each record and of the display objects in it.

A session file is JSON Lines, append-only. The first line is the `meta` record; then, as the session goes:

- `history` {from, contents, after}: the model's history from index `from` on is `contents` (an append is a
  splice at the end; compression and rewind splice earlier). `after` is the digest of the entry just before
  `from`. Replaying every splice in order gives the history. Each record stands alone: when an earlier one was
  lost (a damaged line) and the history read so far does not end where this splice expects (`from` past its
  end, or a different entry before it), its contents are added at the end instead, so a lost record costs only
  what it held.
- `prompt`, `answer`, `call`, `notice`, `compressed`: the transcript, what the user saw, so a resumed app
  redraws the chat (tool rows and their displays included).
- `rewind` {prompt}: the transcript drops everything from that prompt (0-based) on.
- `checkpoint`: a snapshot of the files taken before a tool call that could change them.
- `bookmark` {tag}: `/chat save <tag>` at this point.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gemini_tui.core.ground import display as display_types
from gemini_tui.core.ground.content import contents_from_json, contents_to_json
from gemini_tui.core.ground.model_api import Content

FORMAT = "gemini-tui-session"
VERSION = 1


# -- display objects ---------------------------------------------------------------------------------------------
def _display_classes() -> dict[str, type[Any]]:
    return {name: cls for name, cls in vars(display_types).items()
            if isinstance(cls, type) and dataclasses.is_dataclass(cls)}


def display_to_json(value: Any) -> Any:
    """A display object as JSON: dataclasses tagged with their class name, tuples as lists."""
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: display_to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"$type": type(value).__name__, **fields}
    if isinstance(value, list | tuple):
        return [display_to_json(item) for item in value]
    if isinstance(value, dict):
        return {str(k): display_to_json(v) for k, v in value.items()}
    if isinstance(value, enum.Enum):
        return value.value
    return str(value)  # a display type this version does not know: its text still shows


def display_from_json(data: Any, classes: dict[str, type[Any]] | None = None) -> Any:
    """The inverse of `display_to_json`; an unknown or damaged object comes back as its text."""
    classes = classes if classes is not None else _display_classes()
    if isinstance(data, list):
        return tuple(display_from_json(item, classes) for item in data)
    if not isinstance(data, dict):
        return data
    name = data.get("$type")
    cls = classes.get(name) if isinstance(name, str) else None
    values = {k: display_from_json(v, classes) for k, v in data.items() if k != "$type"}
    if cls is None:
        return values if name is None else f"[{name}] " + ", ".join(f"{k}={v}" for k, v in values.items())
    known = {f.name for f in dataclasses.fields(cls)}
    try:
        return cls(**{k: v for k, v in values.items() if k in known})
    except TypeError:
        return f"[{name}] (saved by another version)"


# -- what a loaded session holds ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class TranscriptEntry:
    """One thing the user saw: a prompt, an answer, a tool call with its display, a notice or a compression mark."""

    kind: str
    data: dict[str, Any]


@dataclass(frozen=True)
class PromptMark:
    """A prompt the user sent and where it starts in the conversation (what a rewind goes back to)."""

    text: str
    position: int


def prompt_position(history: Sequence[Content]) -> int:
    """Where the next prompt starts: after the history, or with the last entry when that is a prompt that got no
    answer (the new one joins it)."""
    return len(history) - 1 if history and history[-1].role == "user" else len(history)


@dataclass(frozen=True)
class CheckpointRecord:
    """A snapshot of the workspace taken before a tool call that could change files."""

    id: str  # the shadow repository's commit
    tool: str
    description: str
    created: float
    position: int  # the history length at the prompt that led to the call: rewinding goes back to it
    prompt_index: int  # which prompt of the transcript (0-based)
    session_id: str = ""


@dataclass
class LoadedSession:
    """A session file read back: its history, transcript, checkpoints and the problems met on the way."""

    id: str
    path: str
    created: float
    root: str
    model: str
    history: list[Content] = field(default_factory=list)
    transcript: list[TranscriptEntry] = field(default_factory=list)
    checkpoints: list[CheckpointRecord] = field(default_factory=list)
    bookmarks: dict[str, int] = field(default_factory=dict)  # tag -> byte offset just after its record
    agent_state: str | None = None  # the workspace tree after the agent's last change (a shadow-repo tree)
    problems: list[str] = field(default_factory=list)
    gaps: int = 0  # history splices added at the end because the records before them were lost
    tokens_spent: int = 0  # what its requests used, by their usage records
    # the context as the model counted it at its last request (its prompt and answer), while nothing has shrunk the
    # history since (a compression or a rewind); None: not recorded (an older file), the front end estimates it
    context_tokens: int | None = None

    @property
    def prompts(self) -> list[TranscriptEntry]:
        return [e for e in self.transcript if e.kind == "prompt"]


def entry_digest(content: Content) -> str:
    """A short digest of one history entry, the same for the entry before saving and after loading (ASCII JSON:
    a surrogate pair kept as two code points and the character it stands for read back alike)."""
    data = json.dumps(contents_to_json([content])[0], ensure_ascii=True, separators=(",", ":"), sort_keys=True)
    return hashlib.sha1(data.encode("ascii"), usedforsecurity=False).hexdigest()[:16]


class NotASession(ValueError):
    """The file is not a gemini-tui session (foreign, empty or damaged from its first line)."""


def apply_record(session: LoadedSession, record: dict[str, Any]) -> None:
    """Folds one record into `session`. Raises ValueError/KeyError/TypeError when the record is malformed."""
    kind = record["kind"]
    match kind:
        case "history":
            start = int(record["from"])
            contents = contents_from_json(record["contents"])
            if start < 0:
                raise ValueError(f"history splice from {start}")
            if start > len(session.history) or (start and "after" in record and record["after"] != entry_digest(
                    session.history[start - 1])):
                start = len(session.history)  # an earlier record was lost: this one's entries still count
                session.gaps += 1
            session.history[start:] = contents
        case "prompt" | "answer" | "call" | "notice" | "compressed":
            session.transcript.append(TranscriptEntry(kind, {k: v for k, v in record.items() if k != "kind"}))
            if kind == "compressed":
                session.context_tokens = None
        case "usage":
            total, prompt, candidates = int(record["total"]), int(record["prompt"]), int(record["candidates"])
            if min(total, prompt, candidates) < 0:
                raise ValueError("a negative token count")
            session.tokens_spent += total
            session.context_tokens = prompt + candidates if prompt else None
        case "rewind":
            session.context_tokens = None
            keep = int(record["prompt"])
            seen = 0
            for index, entry in enumerate(session.transcript):
                if entry.kind == "prompt":
                    if seen == keep:
                        del session.transcript[index:]
                        break
                    seen += 1
            session.checkpoints[:] = [c for c in session.checkpoints if c.prompt_index < keep]
        case "checkpoint":
            session.checkpoints.append(CheckpointRecord(
                str(record["id"]), str(record["tool"]), str(record.get("description", "")),
                float(record["created"]), int(record["position"]), int(record["prompt_index"]), session.id))
        case "agent_state":
            session.agent_state = str(record["tree"])
        case "uncheckpoint":
            session.checkpoints[:] = [c for c in session.checkpoints if c.id != record["id"]]
        case "bookmark":
            pass  # the reader records the byte offset
        case _:
            pass  # a newer version's record: skipped, the rest still loads
