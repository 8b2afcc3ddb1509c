"""Agents room: every subagent a session may call, gathered as Gemini CLI 0.61 gathers them.

Order and precedence: the built-ins, then the project's `.gemini/agents/` (only in a trusted folder, and each
only once acknowledged), then the user's `~/.gemini/agents/`, then each extension's `agents/`. A later agent
with a taken name is ignored with a warning. `agents.overrides.<name>` changes one (enabled, model, turns,
time, tools)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gemini_tui.core.agents.acknowledgements import Acknowledgements
from gemini_tui.core.agents.agent_files import agent_folders, load_agent_folder
from gemini_tui.core.agents.builtins import builtin_agents
from gemini_tui.core.agents.definition import AgentDefinition, AgentSource


@dataclass
class AgentCatalog:
    """The agents found, in the order they are offered; `unacknowledged` are a project's agents waiting for the
    user's yes (they are not offered). `notices` say what was wrong or skipped."""

    agents: list[AgentDefinition] = field(default_factory=list)
    unacknowledged: list[AgentDefinition] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    project: Path | None = None
    acknowledgements: Acknowledgements | None = None
    source: Callable[[], AgentCatalog] | None = None  # loads it again from the files (`/agents reload`)
    switched: dict[str, bool] = field(default_factory=dict)  # enabled or disabled in this session, kept on reload

    @property
    def enabled(self) -> list[AgentDefinition]:
        return [agent for agent in self.agents if agent.enabled]

    def get(self, name: str) -> AgentDefinition | None:
        """An agent that may run now (known and enabled)."""
        return next((agent for agent in self.agents if agent.name == name and agent.enabled), None)

    def find(self, name: str) -> AgentDefinition | None:
        """Any agent by name, also a disabled or unacknowledged one."""
        return next((agent for agent in [*self.agents, *self.unacknowledged] if agent.name == name), None)

    def set_enabled(self, name: str, on: bool) -> AgentDefinition:
        """`/agents enable|disable NAME` for this session (the command also saves it in the settings). Enabling
        a project agent not yet acknowledged acknowledges it. KeyError for an unknown name."""
        for index, agent in enumerate(self.agents):
            if agent.name == name:
                self.switched[name] = on
                self.agents[index] = replace(agent, enabled=on)
                return self.agents[index]
        waiting = next((agent for agent in self.unacknowledged if agent.name == name), None)
        if waiting is None:
            raise KeyError(name)
        if not on:
            return waiting
        self.switched[name] = on
        self.acknowledge(waiting)
        return self.get(name) or waiting

    def reload(self) -> Reloaded:
        """Reads the agent files again (`/agents reload`), keeping what this session enabled or disabled; says
        which agents are new, changed or gone."""
        if self.source is None:
            return Reloaded()
        fresh = self.source()
        before = {agent.name: agent for agent in [*self.agents, *self.unacknowledged]}
        for name, on in self.switched.items():
            # a file changed since it was accepted waits for the user again: only loaded agents are switched
            if any(agent.name == name for agent in fresh.agents):
                fresh.set_enabled(name, on)
        after = {agent.name: agent for agent in [*fresh.agents, *fresh.unacknowledged]}
        self.agents, self.unacknowledged, self.notices = fresh.agents, fresh.unacknowledged, fresh.notices
        return Reloaded(new=sorted(after.keys() - before.keys()), deleted=sorted(before.keys() - after.keys()),
                        updated=sorted(name for name in after.keys() & before.keys()
                                       if after[name].hash != before[name].hash
                                       or after[name].system_prompt != before[name].system_prompt),
                        errors=list(fresh.notices))

    def acknowledge(self, agent: AgentDefinition) -> None:
        if self.acknowledgements is not None and self.project is not None:
            self.acknowledgements.acknowledge(self.project, agent.name, agent.hash)
        self.unacknowledged = [a for a in self.unacknowledged if a.name != agent.name]
        self.agents.append(replace(agent, enabled=True))


@dataclass(frozen=True)
class Reloaded:
    """What `/agents reload` found: agents new, changed or gone since the last load, and the problems."""

    new: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def load_catalog(gemini_dir: Path, root: Path, *, trusted: bool, overrides: Mapping[str, Any] | None = None,
                 extension_folders: Iterable[tuple[str, Path]] = (), enabled: bool = True) -> AgentCatalog:
    """The agents of a session in `root`. `extension_folders` are (extension name, its folder)."""
    project = root.resolve()
    acks = Acknowledgements(gemini_dir)
    extension_folders = list(extension_folders)
    catalog = AgentCatalog(project=project, acknowledgements=acks, source=lambda: load_catalog(
        gemini_dir, root, trusted=trusted, overrides=overrides, extension_folders=extension_folders, enabled=enabled))
    if not enabled:
        return catalog
    overrides = overrides or {}
    taken: set[str] = set()

    def offer(agent: AgentDefinition) -> None:
        if agent.name in taken:
            catalog.notices.append(f"Duplicate agent name '{agent.name}' ({agent.path or agent.source}): the later "
                                   "definition is ignored. Rename one of the agents to avoid this conflict.")
            return
        taken.add(agent.name)
        if agent.mcp_servers:
            catalog.notices.append(f"Agent '{agent.name}': its own MCP servers ({', '.join(agent.mcp_servers)}) are "
                                   "not started by gemini-tui yet; it has the session's tools only.")
        override = overrides.get(agent.name)
        catalog.agents.append(agent.with_overrides(override) if isinstance(override, dict) else agent)

    for agent in builtin_agents():
        offer(agent)
    folders = agent_folders(gemini_dir, root)
    project_folder = folders[AgentSource.project]
    if trusted:
        found = load_agent_folder(project_folder, AgentSource.project)
        catalog.notices += found.errors
        for agent in found.agents:
            if acks.is_acknowledged(project, agent.name, agent.hash):
                offer(agent)
            else:
                catalog.unacknowledged.append(agent)
        if catalog.unacknowledged:
            names = ", ".join(a.name for a in catalog.unacknowledged)
            catalog.notices.append(f"New or changed project agents wait for your review: {names}. Read their files "
                                   f"in {project_folder} and enable each with /agents enable NAME.")
    elif project_folder.is_dir() and any(project_folder.glob("*.md")):
        catalog.notices.append(f"{project_folder}: agents of an untrusted folder are not loaded.")
    user = load_agent_folder(folders[AgentSource.user], AgentSource.user)
    catalog.notices += user.errors
    for agent in user.agents:
        offer(agent)
    for _, folder in extension_folders:
        extension = load_agent_folder(folder / "agents", AgentSource.extension)
        catalog.notices += extension.errors
        for agent in extension.agents:
            offer(agent)
    return catalog
