"""Slash commands: `/help /tools /mcp /memory /clear /stats /about /chat /permissions /quit`, each a small async
function."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemini_tui.app.screens.main_screen import MainScreen

Handler = Callable[["MainScreen", str], Awaitable[None]]


@dataclass(frozen=True)
class SlashCommand:
    name: str
    help: str
    handler: Handler
    usage: str = ""


COMMANDS: dict[str, SlashCommand] = {}


def command(name: str, help_text: str, usage: str = "") -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        COMMANDS[name] = SlashCommand(name, help_text, handler, usage or f"/{name}")
        return handler
    return register


def command_help() -> dict[str, str]:
    """name -> one-line help, for completion, the palette and F1."""
    return {name: cmd.help for name, cmd in COMMANDS.items()}


def session_commands(session: object) -> dict[str, str]:
    """The session's own commands (custom commands, extensions' and MCP prompts): name -> one-line help."""
    commands = getattr(session, "commands", None) or {}
    return {name: f"{cmd.description} ({cmd.origin})" for name, cmd in sorted(commands.items())}


async def run_command(screen: MainScreen, line: str) -> None:
    name, _, args = line[1:].strip().partition(" ")
    cmd = COMMANDS.get(name.lower())
    if cmd is None and name in (getattr(screen.session, "commands", None) or {}):
        if screen.busy:  # the turn worker is exclusive: starting another would cancel the running one
            await screen.chat.add_notice("A turn is running: wait for it, or press Esc to cancel it.", "error")
            return
        screen.send_command(line.strip())  # a custom command: expanded by the session, sent as a prompt
        return
    if cmd is None:
        await screen.chat.add_notice(f"Unknown command: /{name}. Type /help for the list.", "error")
        return
    await cmd.handler(screen, args.strip())


@command("help", "Show keys and commands")
async def _help(screen: MainScreen, args: str) -> None:
    screen.app.action_help()


@command("tools", "List the tools the model can use")
async def _tools(screen: MainScreen, args: str) -> None:
    tools = screen.session.tools
    lines = [f"**{len(tools)} tools**", ""]
    for tool in sorted(tools, key=lambda t: t.name):
        first = (tool.description or "").strip().splitlines()[0] if tool.description else ""
        lines.append(f"- `{tool.name}` ({tool.display_name}): {first}")
    await screen.chat.add_markdown("\n".join(lines))


@command("mcp", "MCP servers: status, tools, prompts and resources")
async def _mcp(screen: MainScreen, args: str) -> None:
    if not screen.mcp_status:
        await screen.chat.add_markdown("No MCP servers configured (`mcpServers` in settings.json).")
        return
    by_server: dict[str, list[str]] = {}
    for tool in screen.session.tools:
        server = getattr(tool, "server_name", None)
        if server:
            by_server.setdefault(server, []).append(tool.name)
    lines = ["**MCP servers**", ""]
    for server, status in sorted(screen.mcp_status.items()):
        detail = f" ({status.message})" if status.message else ""
        lines.append(f"- **{server}**: {status.state.value}, {status.tool_count} tool(s){detail}")
        lines.extend(f"  - `{name}`" for name in sorted(by_server.get(server, [])))
        connection = (getattr(getattr(screen.session, "mcp", None), "connections", None) or {}).get(server)
        if connection is not None and getattr(connection, "prompts", None):
            lines.append("  - prompts: " + ", ".join(f"`/{server}:{p.name}`" for p in connection.prompts))
        if connection is not None and getattr(connection, "resources", None):
            lines.append("  - resources: " + ", ".join(f"`@{server}:{r.uri}`" for r in connection.resources))
    await screen.chat.add_markdown("\n".join(lines))


@command("memory", "Memory from GEMINI.md: show, add <fact>, refresh", "/memory show|add <fact>|refresh")
async def _memory(screen: MainScreen, args: str) -> None:
    session = screen.session
    sub, _, rest = args.partition(" ")
    match sub or "show":
        case "show":
            memory = session.memory
            text, files = memory.text, memory.files
            if not text.strip():
                await screen.chat.add_markdown("Memory is empty. Add a fact with `/memory add <fact>`.")
                return
            outline = memory.outline()
            sources = f"```text\n{outline}\n```"  # every file with the files it imports, nested
            # in a fence, as the model reads it: as Markdown, the end-of-context line ran into the last list item
            fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
            await screen.chat.add_markdown(f"**Memory** from {len(files)} file(s):\n{sources}\n\n"
                                           f"{fence}text\n{text.strip()}\n{fence}")
        case "add":
            if not rest.strip():
                await screen.chat.add_notice("Usage: /memory add <fact>", "error")
                return
            outcome = await session.add_memory(rest.strip())  # save_memory through the scheduler
            await screen.chat.add_notice(outcome.text, "info" if outcome.ok else "error")
        case "refresh":
            count = len(session.refresh_memory().files)
            await screen.chat.add_notice(f"Memory refreshed from {count} file(s).")
        case _:
            await screen.chat.add_notice("Usage: /memory show|add <fact>|refresh", "error")


@command("clear", "Clear the screen and start a new conversation")
async def _clear(screen: MainScreen, args: str) -> None:
    screen.session.clear()
    await screen.chat.clear()
    screen.queue.start_turn()


@command("stats", "Session statistics: tokens, tool calls, decisions, lines changed")
async def _stats(screen: MainScreen, args: str) -> None:
    stats = screen.session.stats
    lines = ["**Session stats**", "", "| model | requests | errors | tokens |", "|---|---:|---:|---:|"]
    for name, model in stats.models.items():
        lines.append(f"| {name} | {model.requests} | {model.errors} | {model.tokens.total} |")
    lines += ["", f"Tool calls: **{stats.total_calls}**", ""]
    if stats.tools:
        lines += ["| tool | calls | ok | failed | time |", "|---|---:|---:|---:|---:|"]
        for name, tool in sorted(stats.tools.items()):
            lines.append(f"| {name} | {tool.count} | {tool.success} | {tool.fail} | {tool.duration_ms / 1000:.1f}s |")
        lines.append("")
    decisions = ", ".join(f"{d.value}: {n}" for d, n in stats.decisions().items())
    lines.append(f"Decisions: {decisions}")
    lines.append(f"Lines: +{stats.lines_added} −{stats.lines_removed}")
    if stats.compressions:
        lines.append(f"Context compressed {stats.compressions} time(s), about {stats.tokens_saved} tokens saved")
    await screen.chat.add_markdown("\n".join(lines))


@command("about", "Version, model, root, and whether commands run in a sandbox")
async def _about(screen: MainScreen, args: str) -> None:
    from gemini_tui import __version__

    session = screen.session
    lines = ["**About gemini-tui**", "", f"- version: {__version__}", f"- model: {session.model_name}",
             f"- root: {session.root}", f"- approval mode: {session.approval_mode}",
             f"- {session.sandbox.describe()}: {session.sandbox.explain()}"]
    await screen.chat.add_markdown("\n".join(lines))


@command("theme", "Pick a colour theme (remembered as ui.theme): /theme [name]", "/theme [name]")
async def _theme(screen: MainScreen, args: str) -> None:
    from gemini_tui.core.config import save_user_setting

    themes = sorted(screen.app.available_themes)
    name = args.strip()
    if not name:
        listed = ", ".join(f"**{t}**" if t == screen.app.theme else f"`{t}`" for t in themes)
        await screen.chat.add_markdown(f"Themes (current in bold): {listed}\n\n`/theme NAME` picks one.")
        return
    if name not in screen.app.available_themes:
        await screen.chat.add_notice(f"No theme {name!r}. Themes: {', '.join(themes)}.", "error")
        return
    screen.app.theme = name
    try:
        path = save_user_setting("ui.theme", name, screen.session.settings.home)
    except (OSError, ValueError) as exc:
        await screen.chat.add_notice(f"Theme {name} for this session; not remembered: {exc}", "warning")
        return
    await screen.chat.add_notice(f"Theme {name}, remembered as ui.theme in {path}.")


@command("chat", "Save, resume or list conversations: save|resume|list <tag>", "/chat save|resume|list <tag>")
async def _chat(screen: MainScreen, args: str) -> None:
    session = screen.session
    sub, _, tag = args.partition(" ")
    tag = tag.strip()
    match sub:
        case "list":
            tags = session.list_chats()
            text = "Saved chats:\n" + "\n".join(f"- `{t}`" for t in tags) if tags else "No saved chats."
            await screen.chat.add_markdown(text)
        case "save" | "resume" if not tag:
            await screen.chat.add_notice(f"Usage: /chat {sub} <tag>", "error")
        case "save":
            session.save_chat(tag)
            await screen.chat.add_notice(f"Conversation saved as '{tag}'.")
        case "resume":
            try:
                session.resume_chat(tag)
            except (KeyError, FileNotFoundError, ValueError) as exc:
                await screen.chat.add_notice(str(exc).strip("'\""), "error")
                return
            await screen.chat.clear()
            if session.resumed is not None:
                await screen.show_transcript(session.resumed)
            else:
                await screen.show_history()
            await screen.chat.add_notice(f"Resumed conversation '{tag}'.")
        case _:
            await screen.chat.add_notice("Usage: /chat save|resume|list <tag>", "error")


@command("permissions", "Rules and grants in force, where each came from; revoke grants",
         "/permissions [revoke <number|key|all>]")
async def _permissions(screen: MainScreen, args: str) -> None:
    from gemini_tui.app.permissions import permissions_markdown, revoke

    sub, _, rest = args.partition(" ")
    match sub:
        case "":
            await screen.chat.add_markdown(permissions_markdown(screen.session))
        case "revoke":
            try:
                revoked = revoke(screen.session, rest)
            except KeyError as exc:
                await screen.chat.add_notice(f"✗ {str(exc).strip(chr(34) + chr(39))}", "error")
                return
            except OSError as exc:  # ~/.gemini/grants.json could not be rewritten
                await screen.chat.add_notice(f"✗ could not revoke: {exc}", "error")
                return
            names = ", ".join(f"{g.rule} ({g.scope})" for g in revoked)
            await screen.chat.add_notice(f"Revoked: {names}. These ask again.")
        case _:
            await screen.chat.add_notice("Usage: /permissions [revoke <number|key|all>]", "error")


@command("quit", "Leave gemini-tui")
async def _quit(screen: MainScreen, args: str) -> None:
    screen.app.exit()


# these modules register more commands when imported: /resume /restore /undo /rewind /compress; /auth /model ...
from gemini_tui.app import history_commands, setup_commands  # noqa: E402,F401
