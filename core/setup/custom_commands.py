"""Custom commands: Gemini CLI's `.gemini/commands/**/*.toml` files, loaded and expanded into a prompt.

A file's path below its `commands/` folder names the command (`git/msg.toml` is `/git:msg`); project commands
win over user commands, which win over extensions'. `prompt` is expanded as Gemini CLI does: `@{path}` first
(read through `read_many_files`), then `!{command}` (run through the shell tool, so through its approvals, with
`{{args}}` inside it shell-quoted), then `{{args}}` (raw); a prompt without `{{args}}` gets the typed command line
appended after a blank line when arguments were given. Front ends (the app and headless) share this module."""

from __future__ import annotations

import re
import shlex
import tomllib
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.model_api import FunctionCall, FunctionResponse
from gemini_tui.core.ground.parts import Part, TextPart
from gemini_tui.core.ground.tool_result import ToolError
from gemini_tui.core.tooling.registry import ToolRegistry

ARGS = "{{args}}"
MAX_COMMAND_FILES = 1000  # a huge tree must not slow down startup


@dataclass(frozen=True)
class CustomCommand:
    """One command: `/name` with its prompt template; `origin` is "user", "project" or "extension NAME"."""

    name: str
    description: str
    prompt: str
    path: Path
    origin: str


class CommandError(Exception):
    """The command cannot be expanded (a file it reads, a command it runs); the message says which and why."""


def command_name(path: Path, folder: Path) -> str:
    """`folder/git/msg.toml` -> `git:msg`."""
    return ":".join(path.relative_to(folder).with_suffix("").parts)


def load_folder(folder: Path, origin: str, notices: list[str]) -> dict[str, CustomCommand]:
    """Every `*.toml` below `folder`; files that are not valid commands are reported and skipped."""
    found: dict[str, CustomCommand] = {}
    if not folder.is_dir():
        return found
    for path in sorted(folder.rglob("*.toml"))[:MAX_COMMAND_FILES]:
        if not path.is_file():
            continue
        name = command_name(path, folder)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
            notices.append(f"{path}: not a valid command file ({exc}); /{name} is skipped.")
            continue
        prompt = data.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            notices.append(f"{path}: a command needs a `prompt` string; /{name} is skipped.")
            continue
        description = data.get("description")
        if not isinstance(description, str) or not description.strip():
            description = f"Custom command from {path.name}"
        found[name] = CustomCommand(name, description.strip(), prompt, path, origin)
    return found


def load_custom_commands(folders: Sequence[tuple[Path, str]]) -> tuple[dict[str, CustomCommand], list[str]]:
    """Commands from `folders` ((folder, origin), lowest precedence first: extensions, user, project)."""
    commands: dict[str, CustomCommand] = {}
    notices: list[str] = []
    for folder, origin in folders:
        commands.update(load_folder(folder, origin, notices))
    return commands, notices


# -- expansion --------------------------------------------------------------------------------------------------
_OPENING = re.compile(r"[@!]\{")


@dataclass(frozen=True)
class _Injection:
    kind: str  # "@" (file) or "!" (shell)
    start: int
    end: int
    body: str


def _injections(template: str) -> list[_Injection]:
    """`@{...}` and `!{...}` with balanced braces inside, in order. An unbalanced one is an error."""
    found: list[_Injection] = []
    index = 0
    while (match := _OPENING.search(template, index)) is not None:
        depth, position = 1, match.end()
        while position < len(template) and depth:
            depth += {"{": 1, "}": -1}.get(template[position], 0)
            position += 1
        if depth:
            raise CommandError(f"unclosed {match.group(0)}...}} in the prompt (its braces must balance)")
        found.append(_Injection(match.group(0)[0], match.start(), position, template[match.end():position - 1]))
        index = position
    return found


RunCalls = Callable[[list[FunctionCall], AbortSignal], Awaitable[list[FunctionResponse]]]


async def _read(path: str, registry: ToolRegistry, abort: AbortSignal) -> list[Part]:
    tool = registry.get("read_many_files")
    if tool is None:
        raise CommandError(f"@{{{path}}} needs the read_many_files tool, which the settings disable.")
    params = tool.validate_params({"paths": [path]})
    if isinstance(params, ToolError):
        raise CommandError(f"@{{{path}}}: {params.message}")
    result = await tool.execute(params, abort)
    if result.error is not None:
        raise CommandError(f"@{{{path}}}: {result.error.message}")
    content = result.llm_content
    if isinstance(content, str):
        if "No files matching" in content or not content.strip():
            raise CommandError(f"@{{{path}}}: no file or folder by that name in the workspace.")
        return [TextPart(content)]
    return list(content)


_OUTPUT = re.compile(r"^Output: (.*?)\nError: ", re.S | re.M)
_EXIT = re.compile(r"^Exit Code: (\S+)", re.M)


def shell_text(response: FunctionResponse) -> str:
    """What a `!{...}` leaves in the prompt: the command's output, and a status line when it failed."""
    if "error" in response.response:
        raise CommandError(str(response.response["error"]))
    report = str(response.response.get("output", ""))
    output = _OUTPUT.search(report)
    text = output.group(1) if output else report
    text = "" if text == "(empty)" else text
    code = _EXIT.search(report)
    if code and code.group(1) not in ("0", "(none)"):
        text += f"\n[Shell command exited with code {code.group(1)}]"
    return text


async def _run_shell(command: str, run_calls: RunCalls, abort: AbortSignal) -> str:
    call = FunctionCall(f"command-{uuid.uuid4().hex[:8]}", "run_shell_command", {"command": command})
    responses = await run_calls([call], abort)
    if abort.aborted:
        raise CommandError("cancelled")
    return shell_text(responses[0])


async def expand(command: CustomCommand, args: str, raw: str, *, registry: ToolRegistry, run_calls: RunCalls,
                 abort: AbortSignal | None = None) -> list[Part]:
    """The prompt `command` sends for `args` (`raw` is the whole line the user typed)."""
    abort = abort or AbortSignal()
    template = command.prompt
    injections = _injections(template)
    files = {i.start: await _read(i.body.strip(), registry, abort) for i in injections if i.kind == "@"}
    shells: dict[int, str] = {}
    for item in injections:
        if item.kind == "!":
            shells[item.start] = await _run_shell(item.body.replace(ARGS, shlex.quote(args)).strip(), run_calls,
                                                  abort)
    parts: list[Part] = []
    last = 0

    def add_text(text: str) -> None:
        if parts and isinstance(parts[-1], TextPart):
            parts[-1] = TextPart(parts[-1].text + text)
        elif text:
            parts.append(TextPart(text))

    for item in injections:
        add_text(template[last:item.start].replace(ARGS, args))
        if item.kind == "@":
            for part in files[item.start]:
                if isinstance(part, TextPart):
                    add_text(part.text)
                else:
                    parts.append(part)
        else:
            add_text(shells[item.start])
        last = item.end
    add_text(template[last:].replace(ARGS, args))
    if ARGS not in template and args.strip():
        add_text(f"\n\n{raw.strip()}")
    return parts or [TextPart("")]


def split_invocation(line: str) -> tuple[str, str]:
    """`/git:msg fix typo` -> ("git:msg", "fix typo")."""
    name, _, args = line.strip().removeprefix("/").partition(" ")
    return name, args.strip()
