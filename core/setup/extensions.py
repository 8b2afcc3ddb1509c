"""Gemini CLI extensions: `~/.gemini/extensions/*/gemini-extension.json` (and the workspace's `.gemini/extensions`).

An extension contributes context files (`contextFileName`, default `GEMINI.md`), MCP servers (`mcpServers`;
a server of the same name in settings.json wins, and an extension cannot mark its servers `trust`),
`excludeTools` (added to `tools.exclude`) and commands (`commands/**/*.toml`). `${extensionPath}`,
`${workspacePath}` and `${/}` in its strings are replaced as Gemini CLI does."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gemini_tui.core.ground.jsonc import strip_json_comments
from gemini_tui.core.setup.config import McpServerConfig, Settings

MANIFEST = "gemini-extension.json"
NONE = "none"  # `-e none`: no extension at all


@dataclass(frozen=True)
class Extension:
    name: str
    version: str
    path: Path
    origin: str  # "user" or "workspace"
    description: str = ""
    context_files: tuple[Path, ...] = ()
    mcp_servers: dict[str, McpServerConfig] = field(default_factory=dict)
    exclude_tools: tuple[str, ...] = ()
    commands_dir: Path | None = None

    def contributions(self) -> list[str]:
        """What it adds, in words (`/extensions`, `--list-extensions`)."""
        found: list[str] = []
        if self.context_files:
            found.append("context " + ", ".join(p.name for p in self.context_files))
        if self.mcp_servers:
            found.append("MCP servers " + ", ".join(sorted(self.mcp_servers)))
        if self.exclude_tools:
            found.append("excludes " + ", ".join(self.exclude_tools))
        if self.commands_dir is not None:
            names = sorted(":".join(p.relative_to(self.commands_dir).with_suffix("").parts)
                           for p in self.commands_dir.rglob("*.toml"))
            if names:
                found.append("commands " + ", ".join(f"/{n}" for n in names))
        return found


def _hydrate(value: Any, variables: dict[str, str]) -> Any:
    match value:
        case str():
            for key, replacement in variables.items():
                value = value.replace("${" + key + "}", replacement)
            return value
        case list():
            return [_hydrate(v, variables) for v in value]
        case dict():
            return {k: _hydrate(v, variables) for k, v in value.items()}
    return value


def load_extension(directory: Path, origin: str, root: Path, notices: list[str]) -> Extension | None:
    manifest = directory / MANIFEST
    try:
        data = json.loads(strip_json_comments(manifest.read_text(encoding="utf-8-sig")))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        notices.append(f"{manifest}: not a readable extension manifest ({exc}); the extension is skipped.")
        return None
    if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not data["name"].strip():
        notices.append(f"{manifest}: an extension needs a `name`; it is skipped.")
        return None
    data = _hydrate(data, {"extensionPath": str(directory), "workspacePath": str(root), "/": os.sep,
                           "pathSeparator": os.sep})
    name = data["name"].strip()
    context_names = data.get("contextFileName") or "GEMINI.md"
    context_names = [context_names] if isinstance(context_names, str) else list(context_names)
    context = tuple(directory / n for n in context_names if isinstance(n, str) and (directory / n).is_file())
    servers: dict[str, McpServerConfig] = {}
    for alias, entry in (data.get("mcpServers") or {}).items():
        try:
            config = McpServerConfig.model_validate(entry)
        except ValidationError as exc:
            notices.append(f"{manifest}: mcpServers.{alias} is not valid ({exc.errors()[0]['msg']}); skipped.")
            continue
        # as in Gemini CLI, an extension cannot skip the confirmation of its own servers' tools
        servers[alias] = config.model_copy(update={"trust": False})
    exclude = data.get("excludeTools") or []
    exclude = tuple(t for t in exclude if isinstance(t, str)) if isinstance(exclude, list) else ()
    commands = directory / "commands"
    return Extension(name=name, version=str(data.get("version") or ""), path=directory, origin=origin,
                     description=str(data.get("description") or ""), context_files=context, mcp_servers=servers,
                     exclude_tools=exclude, commands_dir=commands if commands.is_dir() else None)


def find_extensions(home: Path, root: Path, *, workspace_trusted: bool = True) -> tuple[list[Extension], list[str]]:
    """Every installed extension: the user's, then the workspace's (only in a trusted folder: an extension can
    start servers). A workspace extension with the name of a user one replaces it."""
    notices: list[str] = []
    found: dict[str, Extension] = {}
    places = [(home / ".gemini" / "extensions", "user")]
    workspace_dir = root / ".gemini" / "extensions"
    if workspace_dir.resolve() != places[0][0].resolve():
        if workspace_trusted:
            places.append((workspace_dir, "workspace"))
        elif workspace_dir.is_dir():
            notices.append(f"{workspace_dir}: extensions of an untrusted folder are not loaded.")
    for folder, origin in places:
        if not folder.is_dir():
            continue
        for directory in sorted(p for p in folder.iterdir() if (p / MANIFEST).is_file()):
            try:
                extension = load_extension(directory, origin, root, notices)
            except Exception as exc:  # a planted manifest is skipped with its name, never a crash
                notices.append(f"{directory / MANIFEST}: cannot be read ({exc!r:.200}); the extension is skipped.")
                continue
            if extension is not None:
                found[extension.name] = extension
    return list(found.values()), notices


def select(extensions: Sequence[Extension], wanted: Sequence[str] | None) -> tuple[list[Extension], list[str]]:
    """`-e/--extensions`: only the named ones (`none`: none). Unknown names are reported."""
    if wanted is None:
        return list(extensions), []
    names = {w.strip() for item in wanted for w in item.split(",") if w.strip()}
    if NONE in {n.lower() for n in names}:
        return [], []
    known = {e.name for e in extensions}
    notices = [f"Extension {n!r} (from -e) is not installed; installed: {', '.join(sorted(known)) or 'none'}."
               for n in sorted(names - known)]
    return [e for e in extensions if e.name in names], notices


def apply(settings: Settings, extensions: Sequence[Extension]) -> Settings:
    """Settings with the extensions' MCP servers (settings.json wins by name) and excluded tools added."""
    servers: dict[str, McpServerConfig] = {}
    exclude = list(settings.tools_exclude)
    for extension in extensions:
        servers.update(extension.mcp_servers)
        exclude += [t for t in extension.exclude_tools if t not in exclude]
    return settings.model_copy(update={"mcp_servers": {**servers, **settings.mcp_servers},
                                       "tools_exclude": exclude})
