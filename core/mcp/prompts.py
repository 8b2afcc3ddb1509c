"""MCP prompts as slash commands (`/server:prompt arg=value ...`) and MCP resources as `@server:uri` mentions."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from gemini_tui.core.ground.mentions import MentionError, ResourceReader
from gemini_tui.core.ground.parts import Part, TextPart
from gemini_tui.core.mcp.results import result_parts

if TYPE_CHECKING:
    from gemini_tui.core.mcp.connection import McpConnection


class PromptArgumentError(Exception):
    pass


def parse_arguments(text: str, declared: list[Any]) -> dict[str, str]:
    """`name=value` pairs (quotes as in a shell); bare words fill the declared arguments in order, as Gemini CLI
    does. A required argument left out, or a name the prompt does not declare, is an error naming it."""
    names = [a.name for a in declared]
    values: dict[str, str] = {}
    positional: list[str] = []
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise PromptArgumentError(f"cannot read the arguments ({exc})") from exc
    for word in words:
        key, equals, value = word.partition("=")
        if equals and key.lstrip("-") in names:
            values[key.lstrip("-")] = value
        elif equals and key and key.isidentifier():
            raise PromptArgumentError(f"the prompt has no argument {key!r} (it takes {', '.join(names) or 'none'})")
        else:
            positional.append(word)
    for name in names:
        if name not in values and positional:
            values[name] = positional.pop(0)
    if positional:
        values[names[-1]] = f"{values[names[-1]]} {' '.join(positional)}" if names else ""
        if not names:
            raise PromptArgumentError("this prompt takes no arguments")
    missing = [a.name for a in declared if getattr(a, "required", False) and a.name not in values]
    if missing:
        raise PromptArgumentError(f"missing required argument(s): {', '.join(missing)} (write name=value)")
    return values


@dataclass(frozen=True)
class McpPromptCommand:
    """A server's prompt, offered as `/server:prompt`; `expand` asks the server for its messages."""

    name: str
    description: str
    origin: str
    connection: McpConnection
    prompt: Any  # mcp_types.Prompt

    async def expand(self, args: str) -> list[Part]:
        arguments = parse_arguments(args, list(self.prompt.arguments or []))
        result = await self.connection.get_prompt(self.prompt.name, arguments)
        parts: list[Part] = []
        for message in result.messages:
            for part in result_parts(SimpleNamespace(content=[message.content])):
                if isinstance(part, TextPart) and parts and isinstance(parts[-1], TextPart):
                    parts[-1] = TextPart(f"{parts[-1].text}\n\n{part.text}")
                else:
                    parts.append(part)
        return parts or [TextPart("")]


def prompt_command(connection: McpConnection, prompt: Any) -> McpPromptCommand:
    arguments = " ".join(f"{a.name}=…" for a in (prompt.arguments or []))
    description = (prompt.description or prompt.title or f"Prompt {prompt.name}").strip().splitlines()[0]
    if arguments:
        description += f" ({arguments})"
    return McpPromptCommand(f"{connection.alias}:{prompt.name}", description, f"MCP server {connection.alias}",
                            connection, prompt)


async def read_resource(connection: McpConnection, uri: str) -> list[Part]:
    """A resource's contents as parts (text, or inline data for images and PDF)."""
    result = await connection.read_resource(uri)
    blocks = [SimpleNamespace(type="resource", resource=item) for item in result.contents]
    return result_parts(SimpleNamespace(content=blocks))


def mcp_resource_reader(mcp: object) -> ResourceReader | None:
    """`@server:uri` mentions of connected MCP servers' resources (read with resources/read)."""
    owner = getattr(mcp, "resource_owner", None)
    if owner is None:
        return None

    async def read(mention: str) -> list[Part]:
        found = owner(mention)
        if found is None:
            raise MentionError(f"@{mention}: no connected MCP server by that name.")
        try:
            return await read_resource(*found)
        except Exception as exc:  # the server's error (unknown URI, ...), said as the mention's
            raise MentionError(f"@{mention}: the MCP server could not read it ({exc}).") from exc

    return ResourceReader(lambda mention: owner(mention) is not None, read)
