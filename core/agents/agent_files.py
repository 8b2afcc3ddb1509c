"""Agents room: agent files (`*.md` with YAML front matter) read as Gemini CLI 0.61 reads them.

The front matter's keys are Gemini CLI's: name (a slug), description, display_name, tools, mcp_servers, model,
temperature, max_turns, timeout_mins, kind (only `local` runs here). Any other key makes the file invalid, as
there. The body is the agent's system prompt. Files whose name starts with `_` are skipped."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from gemini_tui.core.agents.definition import (
    DEFAULT_MAX_TURNS,
    DEFAULT_TIMEOUT_MINUTES,
    INHERIT,
    AgentDefinition,
    AgentSource,
)

_FRONT_MATTER = re.compile(r"^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n([\s\S]*))?")
_SLUG = re.compile(r"^[a-z0-9-_]+$")
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_.:*-]+$")
LOCAL_KEYS = frozenset({"kind", "name", "description", "display_name", "tools", "mcp_servers", "model",
                        "temperature", "max_turns", "timeout_mins"})
REMOTE_KEYS = frozenset({"agent_card_url", "agent_card_json", "auth"})


class AgentFileError(ValueError):
    """An agent file that cannot be used; the message names the file and what is wrong."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"Failed to load agent from {path}: {problem}")
        self.path = path


@dataclass
class LoadedAgents:
    agents: list[AgentDefinition] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def parse_agent_file(path: Path, text: str, source: AgentSource) -> AgentDefinition:
    found = _FRONT_MATTER.match(text)
    if found is None:
        raise AgentFileError(path, "the file must start with YAML front matter between --- lines "
                                   "(---\\nname: my-agent\\ndescription: ...\\n---).")
    import yaml

    try:
        raw = yaml.safe_load(found.group(1))
    except yaml.YAMLError as exc:
        raise AgentFileError(path, f"YAML front matter parsing failed: {exc}") from exc
    if not isinstance(raw, dict):
        raise AgentFileError(path, "the front matter must be a mapping of keys (name, description, ...).")
    if raw.get("kind") == "remote" or REMOTE_KEYS & set(raw):
        raise AgentFileError(path, "remote (A2A) agents are not supported by gemini-tui.")
    problems = [f"unknown key {key!r}" for key in raw if key not in LOCAL_KEYS]
    if raw.get("kind", "local") != "local":
        problems.append("kind must be local")
    name, description = raw.get("name"), raw.get("description")
    if not isinstance(name, str) or not _SLUG.match(name):
        problems.append("name: must be a slug (lower-case letters, digits, - and _)")
    if not isinstance(description, str) or not description:
        problems.append("description: must be a non-empty string")
    tools = raw.get("tools")
    if tools is not None and (not isinstance(tools, list)
                              or not all(isinstance(t, str) and _TOOL_NAME.match(t) for t in tools)):
        problems.append("tools: must be a list of tool names (wildcards allowed)")
    servers = raw.get("mcp_servers")
    if servers is not None and (not isinstance(servers, dict) or not all(isinstance(v, dict)
                                                                          for v in servers.values())):
        problems.append("mcp_servers: must map server names to their settings")
    model = raw.get("model")
    if model is not None and not isinstance(model, str):
        problems.append("model: must be a string")
    temperature = raw.get("temperature")
    if temperature is not None and (isinstance(temperature, bool) or not isinstance(temperature, int | float)):
        problems.append("temperature: must be a number")
    for key in ("max_turns", "timeout_mins"):
        value = raw.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
            problems.append(f"{key}: must be a positive whole number")
    display = raw.get("display_name")
    if display is not None and not isinstance(display, str):
        problems.append("display_name: must be a string")
    if problems:
        raise AgentFileError(path, "Validation failed: " + "; ".join(problems))
    assert isinstance(name, str) and isinstance(description, str)
    return AgentDefinition(
        name=name, description=description, system_prompt=(found.group(2) or "").strip(),
        display_name=display or "", model=model or INHERIT,
        temperature=float(temperature) if temperature is not None else None,
        max_turns=raw.get("max_turns") or DEFAULT_MAX_TURNS,
        timeout_minutes=float(raw.get("timeout_mins") or DEFAULT_TIMEOUT_MINUTES),
        tools=tuple(tools) if tools is not None else None, mcp_servers=dict(servers or {}),
        source=source, path=path, hash=hashlib.sha256(text.encode("utf-8")).hexdigest())


def load_agent_folder(folder: Path, source: AgentSource) -> LoadedAgents:
    """Every `*.md` agent in `folder` (not those starting with `_`), in name order; a missing folder is empty."""
    loaded = LoadedAgents()
    try:
        entries = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix == ".md"
                         and not p.name.startswith("_"))
    except FileNotFoundError:
        return loaded
    except OSError as exc:
        loaded.errors.append(f"Agent loading error: could not list {folder}: {exc}")
        return loaded
    for path in entries:
        try:
            loaded.agents.append(parse_agent_file(path, path.read_text(encoding="utf-8"), source))
        except AgentFileError as exc:
            loaded.errors.append(f"Agent loading error: {exc}")
        except (OSError, UnicodeDecodeError) as exc:
            loaded.errors.append(f"Agent loading error: {AgentFileError(path, f'could not read it: {exc}')}")
    return loaded


def agent_folders(gemini_dir: Path, root: Path) -> dict[AgentSource, Path]:
    return {AgentSource.project: root / ".gemini" / "agents", AgentSource.user: gemini_dir / "agents"}
