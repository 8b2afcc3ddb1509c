"""The offline demo model: deterministic rules that turn plain requests into tool calls, no key needed."""

from __future__ import annotations

import asyncio
import fnmatch
import json
import os
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.compression_request import SNAPSHOT_MARKER
from gemini_tui.core.ground.events import Usage
from gemini_tui.core.ground.mentions import AttachedPrompt, Attachment, Mention, mention_spans, read_back
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
from gemini_tui.core.models.offline_snapshot import deterministic_snapshot

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

Quote arguments that contain spaces, e.g. `replace "old text" with "new text" in notes.md`. Files you attach with \
`@path` I show as they are (a phrase may name them too: `list @src`). Set GEMINI_API_KEY to talk to Gemini instead.
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
        text = _literal_at(prompt).strip()
        if not text.lower().startswith("write"):
            text = text.rstrip("!?").strip()
        for pattern, build in self._rules:
            if match := pattern.match(text):
                return build(match)
        return None

    def _answer_attached(self, attached: AttachedPrompt) -> tuple[str, tuple[str, dict[str, Any]] | None]:
        """A prompt sent with its mentions' content: each `@path` stands for the path it names, so a phrase such as
        `replace a with b in @x.md` acts on x.md; a `read` of an attached file, or any other words, are answered
        from the attached content itself (the file is never looked up as `@x.md`)."""
        spans = mention_spans(attached.text)
        mentioned = [m.path for m in spans]
        call = self.interpret(_named(attached.text, spans))
        if call is not None and not (call[0] == "read_file" and self._covered(call[1]["path"], mentioned)):
            return f"Calling {call[0]}.\n", call
        return self._show_attached(attached, mentioned), None

    def _covered(self, path: str, mentioned: list[str]) -> bool:
        return any(_within(Path(path), Path(self._abs(m))) for m in mentioned)

    def _attached_by(self, name: str, mention: str) -> bool:
        """Whether the attachment `name` came from `mention`: the file itself, a folder holding it, a glob it
        matches (`@src/*.py`), or the MCP resource of that name."""
        target = self._abs(mention)
        return (name == mention or _within(Path(name), Path(target)) or fnmatch.fnmatchcase(name, target)
                or fnmatch.fnmatchcase(self._shown(name), mention))

    def _shown(self, name: str) -> str:
        """An attachment's name as the user would write it: relative to the root when inside it."""
        where = Path(name)
        if where.is_absolute():
            for root in (self.root, self.root.resolve()):
                if where.is_relative_to(root):
                    return where.relative_to(root).as_posix()
        return name

    def _show_attached(self, attached: AttachedPrompt, mentioned: list[str]) -> str:
        files = attached.attachments
        lines = []
        if files:
            said = ", ".join(map(_as_mention, mentioned)) or "Your prompt"
            count, them, hold = ("1 file", "it", "it holds") if len(files) == 1 else (f"{len(files)} files", "them",
                                                                                      "they hold")
            lines.append(f"{said} attached {count}. I am the offline demo model, so I cannot explain {them}; this "
                         f"is what {hold}.")
        for item in files:
            lines += ["", *_describe(self._shown(item.name), item)]
        missing = [m for m in mentioned if not any(self._attached_by(f.name, m) for f in files)]
        if missing:
            lines += ["", "Nothing was attached for " + ", ".join(map(_as_mention, missing)) + "."]
        lines += [f"read_many_files: {note}" for note in attached.notes]
        return "\n".join(lines).strip("\n") + "\n"

    async def stream(self, request: ModelRequest, abort_signal: AbortSignal) -> AsyncIterator[ModelChunk]:
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
        call: tuple[str, dict[str, Any]] | None
        if (attached := read_back(last.parts[after + 1:])) is not None:
            # `@path` mentions were read by the session: answer from what they attached, the paths they name
            answer, call = self._answer_attached(attached)
        elif responses and not texts:
            answer, call = summarize(responses), None
        else:
            # newest text first: a `!command` note comes before or after it
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
_DEFINITION = re.compile(r"^\s*(?:export\s+)?(?:async\s+)?(?:def|class|function|func|fn|struct|interface)\s+(\w+)",
                         re.M)


def _literal_at(text: str) -> str:
    """`\\@` is the user's way to write an `@` that attaches nothing: it means the character itself."""
    return text.replace("\\@", "@")


def _named(text: str, spans: list[Mention]) -> str:
    """The prompt with each `@path` replaced by the path it names (quoted when it holds a space)."""
    out, position = [], 0
    for span in spans:
        out += [text[position:span.start], f'"{span.path}"' if " " in span.path else span.path]
        position = span.end
    return "".join([*out, text[position:]])


def _as_mention(path: str) -> str:
    return f'@"{path}"' if " " in path else f"@{path}"


def _within(path: Path, target: Path) -> bool:
    """Whether `path` is `target` or lies under it (a mentioned directory attaches the files in it)."""
    path, target = Path(os.path.realpath(path)), Path(os.path.realpath(target))  # a root reached through a link
    return path == target or target in path.parents


def _fenced(shown: list[str]) -> list[str]:
    """Lines in a fenced block (long enough to hold any run of backticks in them), so Markdown keeps them lines."""
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", "\n".join(shown))), default=0))
    return [fence, *shown, fence]


def _describe(name: str, item: Attachment) -> list[str]:
    """One attachment: its name and size, what it defines (for code), and its first lines."""
    if item.mime_type:
        return [f"{name}: {item.mime_type}, {item.size} bytes, sent as data (I cannot look inside it)."]
    lines = item.text.splitlines()
    head = f"{name}: {len(lines)} line{'' if len(lines) == 1 else 's'}"
    if names := list(dict.fromkeys(_DEFINITION.findall(item.text))):
        head += ", defines " + ", ".join(names[:10]) + (" ..." if len(names) > 10 else "")
    if not lines:
        return [head + ", empty."]
    shown = lines[:SUMMARY_LINES]
    if len(lines) > SUMMARY_LINES:
        shown.append(f"... ({len(lines) - SUMMARY_LINES} more lines)")
    return [head + ":", *_fenced(shown)]


def summarize(responses: list[FunctionResponse]) -> str:
    """A short answer after tool results: the first lines of each, and how much more there was."""
    lines = []
    for response in responses:
        if "error" in response.response:
            lines.append(f"{response.name} failed: {response.response['error']}")
            continue
        output = str(response.response.get("output", "")).strip("\n")
        if not output.strip():
            lines.append(f"{response.name} returned no output.")
            continue
        # the whole output in one fenced block, its first line too: Markdown keeps the lines as lines, and the
        # sentence says what ran, never a piece of what came out
        every = output.splitlines()
        shown = every[:SUMMARY_LINES]
        if len(every) > SUMMARY_LINES:
            shown.append(f"... ({len(every) - SUMMARY_LINES} more lines)")
        lines += [f"{response.name} returned:", *_fenced(shown)]
    return "\n".join(lines) + "\n"
