"""Slash commands: `/help /tools /mcp /memory /clear /stats /about /chat /permissions /quit`, each a small async
function.

A command takes the session (its face) and what the screen knows of MCP servers, and returns what to show as a
typed result (`app.command_registry`); the screen applies it. No command reaches into a screen or its widgets."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gemini_tui.app.command_registry import (
    COMMANDS,
    ChooseTheme,
    ClearChat,
    CommandContext,
    CommandResult,
    CopyText,
    Interactive,
    ModelChanged,
    OpenScreen,
    Quit,
    SendCommand,
    Several,
    ShowConversation,
    ShowMarkdown,
    ShowNotice,
    command,
    command_help,
    run_command,
    session_commands,
)

if TYPE_CHECKING:
    from gemini_tui.core.session.face import SessionFace

__all__ = [
    "COMMANDS", "ChooseTheme", "ClearChat", "CommandContext", "CommandResult", "CopyText", "Interactive",
    "ModelChanged", "OpenScreen", "Quit", "SendCommand", "Several", "ShowConversation", "ShowMarkdown",
    "ShowNotice", "command", "command_help", "run_command", "session_commands",
]


@command("help", "Show keys and commands")
async def _help(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    return OpenScreen("help")


@command("tools", "List the tools the model can use")
async def _tools(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    tools = session.tools
    lines = [f"**{len(tools)} tools**", ""]
    for tool in sorted(tools, key=lambda t: t.name):
        first = (tool.description or "").strip().splitlines()[0] if tool.description else ""
        lines.append(f"- `{tool.name}` ({tool.display_name}): {first}")
    return ShowMarkdown("\n".join(lines))


@command("mcp", "MCP servers: status, tools, prompts and resources")
async def _mcp(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    if not context.mcp_status:
        return ShowMarkdown("No MCP servers configured (`mcpServers` in settings.json).")
    by_server: dict[str, list[str]] = {}
    for tool in session.tools:
        server = getattr(tool, "server_name", None)
        if server:
            by_server.setdefault(server, []).append(tool.name)
    lines = ["**MCP servers**", ""]
    for server, status in sorted(context.mcp_status.items()):
        detail = f" ({status.message})" if status.message else ""
        speaks = f", protocol {status.protocol}" if getattr(status, "protocol", "") else ""
        lines.append(f"- **{server}**: {status.state.value}{speaks}, {status.tool_count} tool(s){detail}")
        lines.extend(f"  - `{name}`" for name in sorted(by_server.get(server, [])))
        prompts, resources = session.services.mcp_offers(server)
        if prompts:
            lines.append("  - prompts: " + ", ".join(f"`/{server}:{name}`" for name in prompts))
        if resources:
            lines.append("  - resources: " + ", ".join(f"`@{server}:{uri}`" for uri in resources))
    return ShowMarkdown("\n".join(lines))


@command("memory", "Memory from GEMINI.md: show, add <fact>, refresh", "/memory show|add <fact>|refresh")
async def _memory(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    sub, _, rest = args.partition(" ")
    match sub or "show":
        case "show":
            memory = session.memory
            text, files = memory.text, memory.files
            if not text.strip():
                return ShowMarkdown("Memory is empty. Add a fact with `/memory add <fact>`.")
            outline = memory.outline()
            sources = f"```text\n{outline}\n```"  # every file with the files it imports, nested
            # in a fence, as the model reads it: as Markdown, the end-of-context line ran into the last list item
            fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
            return ShowMarkdown(f"**Memory** from {len(files)} file(s):\n{sources}\n\n"
                                f"{fence}text\n{text.strip()}\n{fence}")
        case "add":
            if not rest.strip():
                return ShowNotice("Usage: /memory add <fact>", "error")
            outcome = await session.add_memory(rest.strip())  # save_memory through the scheduler
            return ShowNotice(outcome.text, "info" if outcome.ok else "error")
        case "refresh":
            count = len(session.refresh_memory().files)
            return ShowNotice(f"Memory refreshed from {count} file(s).")
        case _:
            return ShowNotice("Usage: /memory show|add <fact>|refresh", "error")


@command("clear", "Clear the screen and start a new conversation")
async def _clear(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    session.clear()
    return ClearChat()


@command("stats", "Session statistics: tokens, tool calls, decisions, lines changed")
async def _stats(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    stats = session.stats
    lines = ["**Session stats**", "", "| model | requests | errors | tokens |", "|---|---:|---:|---:|"]
    for name, model in stats.models.items():
        lines.append(f"| {name} | {model.requests} | {model.errors} | {model.tokens.total} |")
    lines += ["", f"Tool calls: **{stats.total_calls}**", ""]
    if stats.tools:
        # the tools' own time: waiting for the user's approval is not in it (the core counts from the run)
        lines += ["| tool | calls | ok | failed | tool time |", "|---|---:|---:|---:|---:|"]
        for name, tool in sorted(stats.tools.items()):
            lines.append(f"| {name} | {tool.count} | {tool.success} | {tool.fail} | {tool.duration_ms / 1000:.1f}s |")
        lines.append("")
    totals = stats.decisions()
    decisions = ", ".join(f"{d.value}: {n}" for d, n in totals.items())
    # one per model call that reached a decision; a bad, refused or cancelled-before-asked call has none
    summary = [f"Decisions ({sum(totals.values())} of {stats.total_calls} calls): {decisions}",
               f"Lines: +{stats.lines_added} −{stats.lines_removed}"]
    if stats.compressions:
        summary.append(f"Context compressed {stats.compressions} time(s), about {stats.tokens_saved} tokens saved")
    # a paragraph each: lines next to each other are one Markdown paragraph, drawn run together
    return ShowMarkdown("\n".join(lines) + "\n\n" + "\n\n".join(summary))


@command("about", "Version, model, root, and whether commands run in a sandbox")
async def _about(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    from gemini_tui import __version__

    lines = ["**About gemini-tui**", "", f"- version: {__version__}", f"- model: {session.model_label}",
             f"- root: {session.root}", f"- approval mode: {session.approval_mode}",
             f"- {session.sandbox.describe()}: {session.sandbox.explain()}"]
    return ShowMarkdown("\n".join(lines))


@command("theme", "Pick a colour theme (remembered as geminiTui.theme; Gemini CLI's ui.theme is read, never "
                  "written): /theme [name]", "/theme [name]")
async def _theme(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    return ChooseTheme(args.strip())  # the themes are the app's: the screen lists or applies them


@command("chat", "Save, resume or list conversations: save|resume|list <tag>", "/chat save|resume|list <tag>")
async def _chat(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    sub, _, tag = args.partition(" ")
    tag = tag.strip()
    match sub:
        case "list":
            tags = session.chats.list()
            text = "Saved chats:\n" + "\n".join(f"- `{t}`" for t in tags) if tags else "No saved chats."
            return ShowMarkdown(text)
        case "save" | "resume" if not tag:
            return ShowNotice(f"Usage: /chat {sub} <tag>", "error")
        case "save":
            session.chats.save(tag)
            return ShowNotice(f"Conversation saved as '{tag}'.")
        case "resume":
            try:
                session.chats.resume(tag)
            except (KeyError, FileNotFoundError, ValueError) as exc:
                return ShowNotice(str(exc).strip("'\""), "error")
            return ShowConversation(f"Resumed conversation '{tag}'.")
        case _:
            return ShowNotice("Usage: /chat save|resume|list <tag>", "error")


@command("permissions", "Rules and grants in force, where each came from; revoke grants; trust or untrust this "
                        "folder", "/permissions [revoke <number|key|all> | trust | untrust]")
async def _permissions(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    from gemini_tui.app.permissions import permissions_markdown, revoke

    sub, _, rest = args.partition(" ")
    match sub:
        case "":
            return ShowMarkdown(permissions_markdown(session))
        case "revoke":
            try:
                revoked = revoke(session, rest)
            except KeyError as exc:
                return ShowNotice(f"✗ {str(exc).strip(chr(34) + chr(39))}", "error")
            except OSError as exc:  # ~/.gemini/grants.json could not be rewritten
                return ShowNotice(f"✗ could not revoke: {exc}", "error")
            names = ", ".join(f"{g.rule} ({g.scope})" for g in revoked)
            return ShowNotice(f"Revoked: {names}. These ask again.")
        case "trust" | "untrust" if not rest.strip():
            from gemini_tui.app.permissions import set_trust

            return set_trust(session, sub == "trust")
        case _:
            return ShowNotice("Usage: /permissions [revoke <number|key|all> | trust | untrust]", "error")


@command("skills", "Agent Skills found (SKILL.md folders); enable or disable one for this session",
         "/skills [list|enable <name>|disable <name>]")
async def _skills(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    from dataclasses import replace

    found = getattr(session, "skills", None)
    sub, _, name = args.strip().partition(" ")
    if found is None:
        return ShowNotice("This session has no skills.", "error")
    match sub:
        case "" | "list":
            if not found.skills:
                return ShowMarkdown("No skills found (SKILL.md folders in .gemini/skills, .agents/skills, "
                                    "~/.gemini/skills, ~/.agents/skills or extensions).")
            rows = [f"- **{s.name}** ({'disabled' if s.disabled else 'enabled'}, {s.origin}): {s.description}  \n"
                    f"  `{s.location}`" for s in found.skills]
            return ShowMarkdown("**Agent Skills**\n\n" + "\n".join(rows))
        case "enable" | "disable":
            skill = found.get(name.strip())
            if skill is None:
                return ShowNotice(f"No skill {name.strip()!r}; see /skills.", "error")
            found.skills[found.skills.index(skill)] = replace(skill, disabled=sub == "disable")
            return ShowNotice(f"Skill {skill.name} {sub}d for this session (gemini-tui skills {sub} {skill.name} "
                              "saves it).")
        case _:
            return ShowNotice("Usage: /skills [list|enable <name>|disable <name>]", "error")


@command("copy", "Copy the last answer's Markdown (or a code block, or a tool's output) to the clipboard",
         "/copy [code [n] | tool]")
async def _copy(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    from gemini_tui.app.clipboard import code_blocks, last_answer, last_tool_output

    contents = list(getattr(session, "conversation", []))
    words = args.split()
    if words[:1] == ["tool"]:
        found = last_tool_output(contents)
        if found is None:
            return ShowNotice("No tool has answered yet: nothing to copy.", "error")
        return CopyText(found[1], f"the output of {found[0]}")
    answer = last_answer(contents)
    if answer is None:
        return ShowNotice("No answer yet: nothing to copy.", "error")
    if words[:1] != ["code"]:
        return CopyText(answer, "the last answer's Markdown")
    blocks = code_blocks(answer)
    if not blocks:
        return ShowNotice("The last answer has no code block.", "error")
    try:
        index = int(words[1]) if len(words) > 1 else len(blocks)
    except ValueError:
        return ShowNotice("Usage: /copy code [n] (n counts the answer's code blocks from 1).", "error")
    if not 1 <= index <= len(blocks):
        return ShowNotice(f"The last answer has {len(blocks)} code block(s); /copy code 1..{len(blocks)}.", "error")
    return CopyText(blocks[index - 1], f"code block {index} of {len(blocks)}")


@command("quit", "Leave gemini-tui")
async def _quit(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    return Quit()


# these modules register more commands when imported: /resume /restore /undo /rewind /compress; /auth /model ...
from gemini_tui.app import (  # noqa: E402,F401
    agent_commands,
    history_commands,
    plan_commands,
    session_command,
    setup_commands,
    worktree_commands,
)
