"""The conversation sent to the model, with its rules kept in one place.

Gemini rejects a history whose roles do not alternate, or where a function call has no response (or a response no
call). Every change to the history goes through `Conversation`, so these hold after each method:

- roles alternate: a user entry added after a user entry joins it (a prompt after an error or a cancel);
- every FunctionCall of a model entry is answered, in the next entry, by exactly one FunctionResponse: the turn
  loop answers them (`append_responses`), and a call still unanswered when the conversation moves on (a prompt, a
  rewind, a cancelled task) gets an error response (`answer_pending`);
- a model entry is never empty; text the user saw stays when a stream is cut short (`keep_partial`).

Saved chats, autosave, rewind and compression read and change the conversation through these methods only."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

from gemini_tui.core.ground.content import contents_from_json, contents_to_json
from gemini_tui.core.ground.model_api import Content, ContentPart, FunctionCall, FunctionResponse
from gemini_tui.core.ground.parts import TextPart

log = logging.getLogger(__name__)

UNANSWERED = "The conversation moved on before this call ran."


class Conversation(Sequence[Content]):
    """An ordered list of `Content` that only changes through methods keeping the rules above. Reading is a plain
    sequence (`len`, index, iteration; it compares equal to a list of the same contents)."""

    def __init__(self, contents: Iterable[Content] = ()) -> None:
        self._contents: list[Content] = []
        self.revision = 0  # bumped by every change: autosave and caches compare it
        self.load(contents)

    # -- reading ----------------------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._contents)

    @overload
    def __getitem__(self, index: int) -> Content: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Content]: ...
    def __getitem__(self, index: int | slice) -> Content | Sequence[Content]:
        return self._contents[index]

    def __iter__(self) -> Iterator[Content]:
        return iter(self._contents)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Conversation):
            return self._contents == other._contents
        if isinstance(other, list | tuple):
            return self._contents == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"Conversation({self._contents!r})"

    def snapshot(self) -> tuple[Content, ...]:
        """The contents as they are now, for one request (entries are replaced, never changed, so it stays valid)."""
        return tuple(self._contents)

    def pending_calls(self) -> list[FunctionCall]:
        """The calls of the last model entry that have no response yet."""
        if not self._contents or self._contents[-1].role != "model":
            return []
        return [p for p in self._contents[-1].parts if isinstance(p, FunctionCall)]

    def texts(self) -> list[tuple[str, str]]:
        """(role, text) of every entry with text, in order: what a front end shows of a restored conversation."""
        shown = []
        for content in self._contents:
            texts = [p.text for p in content.parts if isinstance(p, TextPart)]
            if texts:
                shown.append((content.role, "\n".join(texts)))
        return shown

    # -- adding -------------------------------------------------------------------------------------------------------
    def append_user(self, parts: Sequence[ContentPart]) -> None:
        """A prompt (or a note such as a `!command`'s output). Calls left unanswered get an error response first;
        after a user entry (a prompt that got no answer, function responses) the parts join that entry."""
        if not parts:
            return
        self.answer_pending(UNANSWERED)
        self._add("user", parts)

    def append_model(self, parts: Sequence[ContentPart]) -> None:
        """One model turn (text, thoughts, calls). An empty turn adds nothing."""
        if not parts:
            return
        self.answer_pending(UNANSWERED)
        self._add("model", parts)

    def keep_partial(self, parts: Sequence[ContentPart]) -> None:
        """A turn cut short (cancel, error, loop): the text the user saw stays; calls that never ran go with the
        rest (they have no response)."""
        self.append_model([p for p in parts if isinstance(p, TextPart)])

    def append_responses(self, responses: Sequence[FunctionResponse]) -> None:
        """The responses to the pending calls, in the calls' order. A pending call without a response gets an
        error one; a response to no pending call is dropped (it would make the history invalid)."""
        calls = self.pending_calls()
        by_id: dict[str, FunctionResponse] = {}
        for response in responses:
            if response.id in by_id or not any(c.id == response.id for c in calls):
                log.warning("dropped a response to no pending call: %s %s", response.name, response.id)
                continue
            by_id[response.id] = response
        answered = [by_id.get(c.id) or _error_response(c, "This call got no response.") for c in calls]
        if answered:
            self._add("user", answered)

    def answer_pending(self, why: str) -> None:
        """Every pending call gets an error response saying `why` (the loop stopped before running them)."""
        calls = self.pending_calls()
        if calls:
            self._add("user", [_error_response(c, why) for c in calls])

    # -- replacing ----------------------------------------------------------------------------------------------------
    def clear(self) -> None:
        self._contents = []
        self.revision += 1

    def load(self, contents: Iterable[Content]) -> None:
        """Replaces everything with `contents` (a resumed chat), made valid: roles merged where they repeat,
        unanswered calls answered, stray responses dropped."""
        self._contents = []
        for content in contents:
            if content.role == "user":
                responses = [p for p in content.parts if isinstance(p, FunctionResponse)]
                others = [p for p in content.parts if not isinstance(p, FunctionResponse)]
                if responses:
                    self.append_responses(responses)
                self.append_user(others)
            else:
                self.append_model(content.parts)
        self.revision += 1

    def truncate_to(self, index: int) -> None:
        """Keeps the first `index` entries (a rewind). Cutting between a call and its response answers the call."""
        if not 0 <= index <= len(self._contents):
            raise IndexError(f"no entry {index} in a conversation of {len(self._contents)}")
        self._contents = self._contents[:index]
        self.revision += 1
        self.answer_pending(UNANSWERED)

    rewind = truncate_to

    def replace_range(self, start: int, stop: int, contents: Sequence[Content]) -> None:
        """Replaces entries `start:stop` with `contents` (a compression summary); the result is made valid."""
        if not 0 <= start <= stop <= len(self._contents):
            raise IndexError(f"no range {start}:{stop} in a conversation of {len(self._contents)}")
        self.load([*self._contents[:start], *contents, *self._contents[stop:]])

    # -- saving -------------------------------------------------------------------------------------------------------
    def to_json(self) -> list[dict[str, Any]]:
        return contents_to_json(self._contents)

    @classmethod
    def from_json(cls, data: list[dict[str, Any]]) -> Conversation:
        return cls(contents_from_json(data))

    # -- the one place entries are added ------------------------------------------------------------------------------
    def _add(self, role: str, parts: Sequence[ContentPart]) -> None:
        last = self._contents[-1] if self._contents else None
        if last is not None and last.role == role:
            # a new entry, not the old one changed: a snapshot taken for a request must not change under it
            self._contents[-1] = Content(last.role, [*last.parts, *parts])
        else:
            self._contents.append(Content(role, list(parts)))  # type: ignore[arg-type]
        self.revision += 1


def _error_response(call: FunctionCall, why: str) -> FunctionResponse:
    return FunctionResponse(call.id, call.name, {"error": why})
