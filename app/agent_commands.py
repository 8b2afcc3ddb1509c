"""`/agents`: the subagents the model may start (`list`, `show NAME`, `enable NAME`, `disable NAME`, `reload`), as
Gemini CLI 0.61's command has them. Enabling or disabling is saved as `agents.overrides.<name>.enabled` in
settings.json (the workspace's file when it has one, else the user's), and a project agent waiting for review is
accepted by enabling it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gemini_tui.app.command_registry import CommandContext, CommandResult, ShowMarkdown, ShowNotice, command

if TYPE_CHECKING:
    from gemini_tui.core.agents.catalog import AgentCatalog
    from gemini_tui.core.agents.definition import AgentDefinition
    from gemini_tui.core.session.face import SessionFace

USAGE = "/agents [list | show <name> | enable <name> | disable <name> | reload]"


def catalog_of(session: SessionFace) -> AgentCatalog | None:
    """The catalog the `invoke_agent` tool offers from (None: subagents are off in this session)."""
    from gemini_tui.tools.invoke_agent import InvokeAgentTool

    tool = next((t for t in session.tools if isinstance(t, InvokeAgentTool)), None)
    return tool.catalog if tool is not None else None


@command("agents", "Subagents the model may start: list, show, enable, disable, reload", USAGE)
async def _agents(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    catalog = catalog_of(session)
    sub, _, name = args.strip().partition(" ")
    name = name.strip()
    if catalog is None:
        return ShowNotice("Subagents are off in this session (the invoke_agent tool is not enabled).", "error")
    match sub:
        case "" | "list":
            return ShowMarkdown(listing(catalog))
        case "show" | "config":
            return show(catalog, name)
        case "enable" | "disable":
            return switch(session, catalog, name, sub == "enable")
        case "reload" | "refresh":
            found = catalog.reload()
            lines = [f"Agents reloaded{' with errors' if found.errors else ''}: {len(catalog.agents)} loaded."]
            lines += [f"- {label}: {', '.join(names)}" for label, names in
                      (("New", found.new), ("Updated", found.updated), ("Deleted", found.deleted)) if names]
            lines += [f"- {error}" for error in found.errors]
            return ShowMarkdown("\n".join(lines))
        case _:
            return ShowNotice(f"Usage: {USAGE}", "error")


def listing(catalog: AgentCatalog) -> str:
    rows = [f"- **{agent.name}** ({'enabled' if agent.enabled else 'disabled'}, {agent.source.value}): "
            f"{agent.description.splitlines()[0] if agent.description else ''}" for agent in catalog.agents]
    rows += [f"- **{agent.name}** (waiting for your review: `/agents enable {agent.name}`): `{agent.path}`"
             for agent in catalog.unacknowledged]
    return "**Subagents**\n\n" + ("\n".join(rows) if rows else "No agents.")


def show(catalog: AgentCatalog, name: str) -> CommandResult:
    if not name:
        return ShowNotice("Usage: /agents show <name>", "error")
    agent = catalog.find(name)
    if agent is None:
        return ShowNotice(f"Agent '{name}' not found; /agents lists them.", "error")
    waiting = agent in catalog.unacknowledged
    state = "waiting for your review" if waiting else "enabled" if agent.enabled else "disabled"
    tools = ", ".join(agent.tools) if agent.tools is not None else "every tool of the session"
    lines = [f"**{agent.title}** (`{agent.name}`, {state}, {agent.source.value})", "", agent.description, "",
             f"- model: {agent.model}", f"- tools: {tools}",
             f"- limits: {agent.max_turns} turns, {agent.timeout_minutes:g} min"]
    if agent.path is not None:
        lines.append(f"- file: `{agent.path}`")
    return ShowMarkdown("\n".join(lines))


def switch(session: SessionFace, catalog: AgentCatalog, name: str, on: bool) -> CommandResult:
    verb = "enable" if on else "disable"
    if not name:
        return ShowNotice(f"Usage: /agents {verb} <name>", "error")
    agent = catalog.find(name)
    if agent is None:
        return ShowNotice(f"Agent '{name}' not found; /agents lists them.", "error")
    waiting = agent in catalog.unacknowledged
    if agent.enabled == on and not waiting:
        return ShowNotice(f"Agent '{name}' is already {verb}d.")
    if waiting and not on:
        return ShowNotice(f"Agent '{name}' is not offered until you enable it; nothing to disable.")
    if waiting and _said_nowhere(session, name):  # accepting a project's agent: nothing to save in settings
        catalog.set_enabled(name, True)
        return ShowNotice(f"Agent '{name}' accepted and enabled; a change to its file asks again.")
    try:
        where = save_switch(session, agent, on)
    except (OSError, ValueError) as exc:  # a settings file with comments, or not an object: nothing is changed
        return ShowNotice(f"Agent '{name}' was not {verb}d: {exc}", "error")
    catalog.set_enabled(name, on)
    accepted = " Its file is accepted as it is now; a change to it asks again." if waiting else ""
    return ShowNotice(f"Agent '{name}' {verb}d (agents.overrides.{name}.enabled in {where}).{accepted}")


def _scopes(session: SessionFace) -> list[Path]:
    from gemini_tui.core.setup.config import SETTINGS_FILE

    user = session.settings.gemini_dir / SETTINGS_FILE
    workspace = session.root / ".gemini" / SETTINGS_FILE
    return [workspace, user] if workspace.resolve() != user.resolve() else [user]


def _said_nowhere(session: SessionFace, name: str) -> bool:
    return all(_override(_read(path), name) is None for path in _scopes(session))


def save_switch(session: SessionFace, agent: AgentDefinition, on: bool) -> Path:
    """Writes `agents.overrides.<name>.enabled`: where a scope already says it, there; else a disable goes to the
    workspace's settings when it has a file (as Gemini CLI), else to the user's."""
    from gemini_tui.core.setup.settings_edit import SettingsFileError, read_for_edit, write_settings

    scopes = _scopes(session)
    workspace, user = scopes[0], scopes[-1]
    saying = [path for path in scopes if _override(_read(path), agent.name) is not None]
    targets = saying or [workspace if workspace in scopes and workspace.is_file() and not on else user]
    for path in targets:
        try:
            data = read_for_edit(path)
        except SettingsFileError as exc:
            raise ValueError(str(exc)) from exc
        agents = data.setdefault("agents", {})
        overrides = agents.setdefault("overrides", {}) if isinstance(agents, dict) else None
        entry = overrides.setdefault(agent.name, {}) if isinstance(overrides, dict) else None
        if not isinstance(entry, dict):
            raise ValueError(f"{path}: agents.overrides.{agent.name} is not an object; fix it first.")
        entry["enabled"] = on
        write_settings(path, data)
    return targets[0]


def _read(path: Path) -> dict[str, Any]:
    from gemini_tui.core.setup.settings_edit import SettingsFileError, read_for_edit

    try:
        return read_for_edit(path)
    except (SettingsFileError, OSError):
        return {}


def _override(data: dict[str, Any], name: str) -> object:
    agents = data.get("agents")
    overrides = agents.get("overrides") if isinstance(agents, dict) else None
    entry = overrides.get(name) if isinstance(overrides, dict) else None
    return entry.get("enabled") if isinstance(entry, dict) else None
