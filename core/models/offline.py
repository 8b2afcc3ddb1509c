"""The offline demo model: deterministic rules that turn plain requests into tool calls, no key needed."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.events import Usage
from gemini_tui.core.ground.model_api import (
    CallChunk,
    Content,
    FunctionCall,
    FunctionResponse,
    ModelChunk,
    ModelRequest,
    TextChunk,
    UsageChunk,
)
from gemini_tui.core.ground.parts import TextPart

OFFLINE_MODEL_NAME = "offline"

HELP_TEXT = """I am the offline demo model of gemini-tui, not Gemini: I only follow a few fixed phrases, each of \
which becomes one tool call, so that you can try the tools on your own files without an API key.

- `list <dir>`: list a directory (list_directory)
- `read <file>`: read a file (read_file)
- `find <glob>`: find files by name (glob)
- `search <regex> [in <glob>]`: search file contents (search_file_content)
- `replace <a> with <b> in <file>`: edit a file (replace)
- `write <file>: <text>`: write a file (write_file)
- `run <command>`: run a shell command (run_shell_command)
- `remember <fact>`: save a fact to GEMINI.md (save_memory)

Quote arguments that contain spaces, e.g. `replace "old text" with "new text" in notes.md`. Set GEMINI_API_KEY \
to talk to Gemini instead.
"""

_Q = r"""("[^"]*"|'[^']*'|\S+)"""  # one argument: quoted or a single word


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


class OfflineModel:
    """A ModelClient with no network. Reads the last user prompt; after a tool result, summarizes it."""

    model_name = OFFLINE_MODEL_NAME
    is_offline = True

    def __init__(self, root: Path, chunk_delay_s: float = 0.0) -> None:
        self.root = Path(root)
        self.chunk_delay_s = chunk_delay_s
        self._calls = 0
        self._rules: list[tuple[re.Pattern[str], Callable[[re.Match[str]], tuple[str, dict[str, Any]]]]] = [
            (re.compile(r"^(?:list|ls)(?:\s+(.+))?$", re.I | re.S),
             lambda m: ("list_directory", {"path": self._abs(m.group(1) or ".")})),
            (re.compile(r"^(?:read|cat|show)\s+(.+)$", re.I | re.S),
             lambda m: ("read_file", {"path": self._abs(m.group(1))})),
            (re.compile(r"^find\s+(.+)$", re.I | re.S),
             lambda m: ("glob", {"pattern": _unquote(m.group(1))})),
            (re.compile(rf"^(?:search|grep)\s+{_Q}(?:\s+in\s+{_Q})?$", re.I | re.S), self._search),
            (re.compile(rf"^replace\s+{_Q}\s+with\s+{_Q}\s+in\s+(.+)$", re.I | re.S),
             lambda m: ("replace", {"file_path": self._abs(m.group(3)), "old_string": _unquote(m.group(1)),
                                    "new_string": _unquote(m.group(2))})),
            (re.compile(r"^write\s+([^:]+?)\s*:\s?(.*)$", re.I | re.S),
             lambda m: ("write_file", {"file_path": self._abs(m.group(1)), "content": m.group(2)})),
            (re.compile(r"^run\s+(.+)$", re.I | re.S),
             lambda m: ("run_shell_command", {"command": m.group(1).strip()})),
            (re.compile(r"^remember\s+(?:that\s+)?(.+)$", re.I | re.S),
             lambda m: ("save_memory", {"fact": m.group(1).strip()})),
        ]

    def _abs(self, path: str) -> str:
        where = Path(_unquote(path)).expanduser()  # `read ~/x`: the user's home, as in a shell
        return str(where if where.is_absolute() else (self.root / where))

    def _search(self, match: re.Match[str]) -> tuple[str, dict[str, Any]]:
        args: dict[str, Any] = {"pattern": _unquote(match.group(1))}
        if match.group(2):
            args["include"] = _unquote(match.group(2))
        return "search_file_content", args

    def interpret(self, prompt: str) -> tuple[str, dict[str, Any]] | None:
        """The tool call a prompt asks for, or None (the help text)."""
        text = prompt.strip()
        if not text.lower().startswith("write"):
            text = text.rstrip("!?").strip()
        for pattern, build in self._rules:
            if match := pattern.match(text):
                return build(match)
        return None

    async def stream(self, request: ModelRequest, abort_signal: AbortSignal) -> AsyncIterator[ModelChunk]:
        from gemini_tui.core.session.compression import SNAPSHOT_MARKER, deterministic_snapshot

        if request.system_instruction.startswith(SNAPSHOT_MARKER):  # a compression request: the same every time
            snapshot = deterministic_snapshot(request.contents)
            yield TextChunk(snapshot)
            yield UsageChunk(Usage(candidates_tokens=len(snapshot) // 4, total_tokens=len(snapshot) // 4))
            return
        last = request.contents[-1] if request.contents else Content("user", [])
        # the newest prompt is what came after the last tool result: after a cancelled call or a `!command`
        # the new prompt joins the entry that holds the old result (or the command's note), and it is the
        # prompt that must be answered, not the old result
        after = max((i for i, p in enumerate(last.parts) if isinstance(p, FunctionResponse)), default=-1)
        responses = [p for p in last.parts if isinstance(p, FunctionResponse)]
        texts = [p.text for p in last.parts[after + 1:] if isinstance(p, TextPart) and p.text.strip()]
        if responses and not texts:
            answer, call = summarize(responses), None
        else:
            # newest text first: a `!command` note or the files an @mention read come before or after it
            call = next((c for c in map(self.interpret, reversed(texts)) if c is not None), None)
            if call is None and texts:
                call = self.interpret(" ".join(texts))
            answer = f"Calling {call[0]}.\n" if call else HELP_TEXT
        for word in re.findall(r".{1,40}(?:\s+|$)", answer, re.S):
            if abort_signal.aborted:
                return
            yield TextChunk(word)
            await asyncio.sleep(self.chunk_delay_s)
        if call is not None:
            self._calls += 1
            yield CallChunk(FunctionCall(f"offline-{self._calls}", call[0], call[1]))
        prompt_tokens = sum(len(json.dumps(str(c.parts))) for c in request.contents) // 4
        yield UsageChunk(Usage(prompt_tokens=prompt_tokens, candidates_tokens=len(answer) // 4,
                               total_tokens=prompt_tokens + len(answer) // 4))


SUMMARY_LINES = 8


def summarize(responses: list[FunctionResponse]) -> str:
    """A short answer after tool results: the first lines of each, and how much more there was."""
    lines = []
    for response in responses:
        if "error" in response.response:
            lines.append(f"{response.name} failed: {response.response['error']}")
            continue
        output = str(response.response.get("output", "")).strip()
        first, *rest = output.splitlines() or ["(no output)"]
        lines.append(f"{response.name} returned: {first}")
        if rest:
            # A fenced block keeps the lines as lines when the answer is shown as Markdown.
            shown = rest[:SUMMARY_LINES]
            if len(rest) > SUMMARY_LINES:
                shown.append(f"... ({len(rest) - SUMMARY_LINES} more lines)")
            fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", "\n".join(shown))), default=0))
            lines += [fence, *shown, fence]
    return "\n".join(lines) + "\n"
