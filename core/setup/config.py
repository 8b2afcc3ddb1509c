"""Settings: `settings.json` from the user's and the workspace's `.gemini/`, with env expansion and notices."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gemini_tui.core.approvals.trust import FolderTrust, TrustedFolders, TrustSource, check_trust
from gemini_tui.core.ground.jsonc import strip_json_comments

DEFAULT_MODEL = "gemini-2.5-pro"
DEFAULT_CONTEXT_FILE = "GEMINI.md"
DEFAULT_MAX_SESSION_TURNS = 100
SETTINGS_FILE = "settings.json"
TUI_SECTION = "geminiTui"  # gemini-tui's own settings in the settings.json it shares with Gemini CLI (which ignores it)


class McpServerConfig(BaseModel):
    """One `mcpServers.<alias>` entry (Gemini CLI's settings.json shape)."""

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
    # `gemini mcp add -t http|sse` writes {"url": ..., "type": ...}; without `type`, httpUrl is streamable HTTP
    # and url is SSE
    type: Literal["stdio", "sse", "http"] | None = None
    description: str | None = None
    oauth: dict[str, Any] | None = None  # {enabled, clientId, clientSecret, scopes, redirectUri, ...}
    auth_provider_type: str | None = Field(default=None, alias="authProviderType")


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
    max_session_turns: int = DEFAULT_MAX_SESSION_TURNS
    web_fetch_private_addresses: bool = False  # tools.webFetchPrivateAddresses: web_fetch may reach localhost/LAN
    auth_selected_type: str | None = None  # security.auth.selectedType (core/auth.py reads it)
    include_directories: list[str] = Field(default_factory=list)  # context.includeDirectories
    stream_idle_timeout_s: float = 90.0  # model.streamIdleTimeout: seconds without a chunk before a retry
    disable_loop_detection: bool = False  # model.disableLoopDetection
    disable_llm_correction: bool = False  # tools.disableLLMCorrection: replace asks no model to fix a miss
    default_approval_mode: str | None = None  # general.defaultApprovalMode: default, auto_edit or plan
    disable_yolo_mode: bool = False  # security.disableYoloMode: yolo refused (flag, key), true anywhere wins
    disable_always_allow: bool = False  # security.disableAlwaysAllow: no "allow always" at confirmations
    folder_trust_enabled: bool = True  # security.folderTrust.enabled, read from the user's settings only
    trust: FolderTrust = Field(default_factory=lambda: FolderTrust(True, TrustSource.disabled))
    withheld: list[str] = Field(default_factory=list)  # "<file>: <key>" not applied: the folder is not trusted
    trust_notices: list[str] = Field(default_factory=list)  # what folder trust withheld or kept unexpanded, said
    sandbox: bool | str | None = None  # tools.sandbox: false turns the default bubblewrap sandbox off
    sandbox_network: bool = False  # tools.sandboxNetwork: sandboxed commands may use the network
    sandbox_writable_roots: list[str] = Field(default_factory=list)  # tools.sandboxWritableRoots: more it writes
    shell_allow_redirection: bool = False  # tools.shell.allowRedirection: covered commands may write in the root
    checkpointing_enabled: bool = True  # general.checkpointing.enabled: snapshot files before changing tools
    compression_threshold: float = 0.5  # model.compressionThreshold: compress past this share of the window
    # model.providers: OpenAI-compatible servers by name ({baseUrl, apiKeyEnv, headers, contextWindow, tools,
    # extraBody}),
    # reached as `<name>/<model>` (core/models/providers.py)
    model_providers: dict[str, dict[str, Any]] = Field(default_factory=dict)
    session_retention_enabled: bool = True  # general.sessionRetention.enabled
    session_retention_max_count: int | None = None  # general.sessionRetention.maxCount
    session_retention_max_age: str | None = None  # general.sessionRetention.maxAge ("30d", "12h")
    key_sources: dict[str, list[str]] = Field(default_factory=dict)  # field -> ["<file>: <key>"] that set it
    mcp_allowed: list[str] | None = None  # mcp.allowed: only these MCP servers connect
    mcp_excluded: list[str] = Field(default_factory=list)  # mcp.excluded: these never connect
    hooks: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)  # event -> groups, each with "source"
    # where each rule of a list setting came from: "tools_allowed" -> {rule: settings file}
    origins: dict[str, dict[str, str]] = Field(default_factory=dict)
    ui_theme: str | None = None  # ui.theme: Gemini CLI's theme name (the app maps it to the nearest of its own)
    tui_theme: str | None = None  # geminiTui.theme: the app's own theme (/theme saves it; Gemini CLI ignores it)
    ui_notifications: bool = True  # ui.notifications: bell + OSC 9 when an approval or an answer waits
    skills_enabled: bool = True  # skills.enabled: Agent Skills are discovered and offered (core/setup/skills.py)
    skills_disabled: list[str] = Field(default_factory=list)  # skills.disabled: names never offered
    agents_overrides: dict[str, dict[str, Any]] = Field(default_factory=dict)  # agents.overrides.<name>
    agents_max_parallel: int = 4  # agents.maxParallel: subagents of one turn that run at once
    # general.plan.modelRouting: an `auto` model alias plans with its Pro model and carries out with its Flash one
    plan_model_routing: bool = True
    home: Path = Field(default_factory=lambda: gemini_home())
    files: list[Path] = Field(default_factory=list)  # the settings files that were read
    notices: list[str] = Field(default_factory=list)

    @property
    def workspace_trusted(self) -> bool:
        """Whether the workspace's own settings, commands and extensions that run code may apply."""
        return self.trust.trusted

    @property
    def gemini_dir(self) -> Path:
        """`~/.gemini` (or `$GEMINI_CLI_HOME/.gemini`): user settings, GEMINI.md, saved chats."""
        return self.home / ".gemini"


def gemini_home(env: Mapping[str, str] | None = None) -> Path:
    """The directory holding `.gemini/`: `GEMINI_CLI_HOME` when set (tests use a temp one), else `~`."""
    env = os.environ if env is None else env
    override = env.get("GEMINI_CLI_HOME")
    return Path(override).expanduser() if override else Path.home()


# -- reading one file ------------------------------------------------------------------------------------------


_VAR = re.compile(r"\$\{(\w+)\}|\$(\w+)")


def expand_env(value: Any, env: Mapping[str, str]) -> Any:
    """`$VAR` and `${VAR}` in every string value; an unset variable is left as written."""
    match value:
        case str():
            return _VAR.sub(lambda m: env.get(m.group(1) or m.group(2), m.group(0)), value)
        case list():
            return [expand_env(v, env) for v in value]
        case dict():
            return {k: expand_env(v, env) for k, v in value.items()}
    return value


def read_settings_file(path: Path, env: Mapping[str, str], notices: list[str]) -> dict[str, Any]:
    """The file's top-level object, env-expanded; {} (with a notice) when it is missing a usable shape."""
    try:
        raw = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        notices.append(f"{path}: cannot be read ({exc.strerror or exc}); ignored.")
        return {}
    except UnicodeDecodeError as exc:  # bytes that are not UTF-8 (a planted file): said, never a crash
        notices.append(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); ignored.")
        return {}
    if not raw.strip():
        return {}
    try:
        data = json.loads(strip_json_comments(raw))
    except json.JSONDecodeError as exc:
        notices.append(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); ignored.")
        return {}
    except RecursionError:
        notices.append(f"{path}: nested too deeply to read; ignored.")
        return {}
    if not isinstance(data, dict):
        notices.append(f"{path}: must hold a JSON object, not {type(data).__name__}; ignored.")
        return {}
    return expand_env(data, env)


# -- the keys we understand, with their older spellings ---------------------------------------------------------
def _str_list(value: Any) -> list[str]:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ValueError("must be a list of strings")


def _str(value: Any) -> str:
    if isinstance(value, str):
        return value
    raise ValueError("must be a string")


def _str_or_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    names = _str_list(value)
    if not names:
        raise ValueError("must name at least one file")
    return names


def not_a_file_name(name: str) -> str | None:
    """Why `name` is not a plain file name (None when it is): `context.fileName` names a file looked for in each
    folder, and a path in it (`/home/you/.ssh/id_rsa`, `../../.ssh/id_rsa`, `~/x`, `C:\\x`) would read a file
    from anywhere into the system instruction."""
    if not name.strip():
        return "it is empty"
    if "/" in name or "\\" in name:
        return "it holds a path separator"
    if ".." in name:
        return "it holds `..`"
    if name.startswith("~"):
        return "it starts with `~` (a home folder)"
    if any(ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 for ch in name):
        return "it holds a control character"
    return None


def _context_file_names(value: Any) -> list[str]:
    names = _str_or_list(value)
    refused = [f"{name!r} ({why})" for name in names if (why := not_a_file_name(name))]
    if refused:
        raise _Partly([name for name in names if not not_a_file_name(name)],
                      f"entries must be file names, looked for in each folder; refused: {', '.join(refused)}")
    return names


class _Partly(ValueError):
    """A value of which a part is usable: `kept` applies, the message says what was dropped and why."""

    def __init__(self, kept: Any, message: str) -> None:
        super().__init__(message)
        self.kept = kept


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise ValueError("must be true or false")


def _approval_mode(value: Any) -> str:
    if value in ("default", "auto_edit", "plan"):
        return str(value)
    if value == "yolo":
        raise ValueError("cannot be yolo (only --yolo or Ctrl+Y turn yolo on)")
    raise ValueError("must be default, auto_edit or plan")


def _bool_or_str(value: Any) -> bool | str:
    """Any other value is kept as text: a sandbox asked for in a form we do not know must refuse commands, not
    be dropped as a bad setting (that would run them bare)."""
    return value if isinstance(value, bool | str) else json.dumps(value)


def _fraction(value: Any) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= 1:
        return float(value)
    raise ValueError("must be a number above 0 and at most 1 (a share of the context window)")


def _providers(value: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(value, dict):
        raise ValueError("must be an object of named providers")
    for name, entry in value.items():
        if not isinstance(entry, dict):
            raise ValueError(f"entry {name!r} must be an object (baseUrl, apiKeyEnv, headers)")
        if "/" in name or not name.strip():
            raise ValueError(f"provider name {name!r} cannot be empty or contain '/'")
        for key, kind in (("baseUrl", str), ("apiKeyEnv", str), ("headers", dict), ("contextWindow", int),
                          ("tools", bool), ("extraBody", dict)):
            if key in entry and (not isinstance(entry[key], kind) or isinstance(entry[key], bool) is not (
                    kind is bool)):
                raise ValueError(f"{name}.{key} must be a {kind.__name__}")
    return {name: dict(entry) for name, entry in value.items()}


def _age(value: Any) -> str:
    from gemini_tui.core.persistence.store import parse_age

    parse_age(value)
    return str(value)


def _overrides(value: Any) -> dict[str, dict[str, Any]]:
    """agents.overrides: agent name -> {enabled, modelConfig, runConfig, tools} (core/agents/definition.py)."""
    if not isinstance(value, dict) or not all(isinstance(entry, dict) for entry in value.values()):
        raise ValueError("must be an object of agent names, each an object (enabled, modelConfig, runConfig, tools)")
    return value


def _positive_int(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    raise ValueError("must be a positive whole number")


def _positive_number(value: Any) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    raise ValueError("must be a positive number (seconds)")


# setting field <- (key paths, newest first; a dotted path is nested), and the check that converts the value
_KEYS: dict[str, tuple[tuple[str, ...], Callable[[Any], Any]]] = {
    "discovery_command": (("tools.discoveryCommand", "toolDiscoveryCommand"), _str),
    "call_command": (("tools.callCommand", "toolCallCommand"), _str),
    "tools_core": (("tools.core", "coreTools"), _str_list),
    "tools_exclude": (("tools.exclude", "excludeTools"), _str_list),
    "tools_allowed": (("tools.allowed", "allowedTools"), _str_list),
    "model_name": (("model.name",), _str),
    "max_session_turns": (("model.maxSessionTurns", "maxSessionTurns"), _positive_int),
    "context_file_names": (("context.fileName", "contextFileName"), _context_file_names),
    "web_fetch_private_addresses": (("tools.webFetchPrivateAddresses",), _bool),
    "auth_selected_type": (("security.auth.selectedType", "selectedAuthType"), _str),
    "include_directories": (("context.includeDirectories",), _str_list),
    "stream_idle_timeout_s": (("model.streamIdleTimeout",), lambda v: float(_positive_number(v))),
    "disable_loop_detection": (("model.disableLoopDetection",), _bool),
    "disable_llm_correction": (("tools.disableLLMCorrection",), _bool),
    "default_approval_mode": (("general.defaultApprovalMode",), _approval_mode),
    "disable_yolo_mode": (("security.disableYoloMode",), _bool),
    "disable_always_allow": (("security.disableAlwaysAllow",), _bool),
    "sandbox": (("tools.sandbox", "sandbox"), _bool_or_str),
    "sandbox_network": (("tools.sandboxNetwork",), _bool),
    "sandbox_writable_roots": (("tools.sandboxWritableRoots",), _str_list),
    "shell_allow_redirection": (("tools.shell.allowRedirection",), _bool),
    "checkpointing_enabled": (("general.checkpointing.enabled", "checkpointing.enabled"), _bool),
    "compression_threshold": (("model.compressionThreshold",), _fraction),
    "model_providers": (("model.providers",), _providers),
    "session_retention_enabled": (("general.sessionRetention.enabled",), _bool),
    "session_retention_max_count": (("general.sessionRetention.maxCount",), _positive_int),
    "session_retention_max_age": (("general.sessionRetention.maxAge",), _age),
    "mcp_allowed": (("mcp.allowed",), _str_list),
    "mcp_excluded": (("mcp.excluded",), _str_list),
    "ui_theme": (("ui.theme",), _str),
    "tui_theme": ((f"{TUI_SECTION}.theme",), _str),
    "ui_notifications": (("ui.notifications",), _bool),
    "skills_enabled": (("skills.enabled",), _bool),
    "skills_disabled": (("skills.disabled",), _str_list),
    "agents_overrides": (("agents.overrides",), _overrides),
    "agents_max_parallel": (("agents.maxParallel",), _positive_int),
    "plan_model_routing": (("general.plan.modelRouting",), _bool),
}
_SECTIONS = (TUI_SECTION, "tools", "model", "context", "general", "security", "checkpointing", "mcp", "skills",
             "agents")
# Gemini CLI's usual sections that change nothing here: read silently, never a notice
_QUIET = ("general", "privacy", "telemetry", "ui")
# list settings whose rules carry the file they came from (the policy names it when a rule decides)
_RULE_SETTINGS = ("tools_core", "tools_exclude", "tools_allowed", "mcp_allowed", "mcp_excluded")


def _asks_sandbox(value: bool | str | None) -> bool:
    return value is not None and value is not False and str(value).strip().lower() not in (
        "", "0", "false", "no", "off", "none")


# restrictions: true in any file holds (a workspace cannot lift the user's)
_RESTRICTIONS = ("disable_yolo_mode", "disable_always_allow")

# Workspace settings that run programs or widen what runs without asking: applied only in a trusted folder.
# (Older spellings too. A key added here is withheld from untrusted workspaces with a notice naming it.)
NEEDS_TRUST: tuple[str, ...] = (
    "tools.discoveryCommand", "toolDiscoveryCommand", "tools.callCommand", "toolCallCommand", "mcpServers",
    "tools.allowed", "allowedTools", "hooks", "general.defaultApprovalMode", "tools.webFetchPrivateAddresses",
    "context.includeDirectories",  # would let the file tools reach folders outside the root
    "tools.sandboxNetwork",  # would let sandboxed commands reach the network
    "tools.sandboxWritableRoots",  # would let sandboxed commands write outside the roots
    "model.providers",  # would send the prompts, files and any key named by apiKeyEnv to the project's server
    "tools.shell.allowRedirection",  # would let allowed commands write files unasked
    "security.auth.selectedType", "selectedAuthType",  # would pick another endpoint and key (Vertex AI's, say)
)
# Any setting naming an endpoint (`baseUrl`, `httpUrl`, `url`, `otlpEndpoint`, a proxy or host) is withheld from an
# untrusted workspace wherever it sits, so a key added later is covered without being listed above.
_ENDPOINT_KEY = re.compile(r"(?i)(url|uri|endpoint|host|proxy)$")
# Gemini's own resource names hold a slash; any other `x/model` names a provider the prompts would go to
_GEMINI_NAME_PREFIXES = ("models/", "tunedModels/")


def names_another_provider(model_name: str) -> bool:
    """Whether `model_name` would send the prompts somewhere other than Gemini (`openai/x`, `ollama/llama3`, any
    `<provider>/<model>`), as opposed to a Gemini model name (`gemini-2.5-pro`, `models/gemini-2.5-pro`)."""
    return "/" in model_name and not model_name.startswith(_GEMINI_NAME_PREFIXES)
FOLDER_TRUST_KEY = "security.folderTrust"  # the switch itself: only the user's settings may turn it off


def _lookup(data: dict[str, Any], dotted: str) -> tuple[bool, Any]:
    node: Any = data
    for key in dotted.split("."):
        if not isinstance(node, dict) or key not in node:
            return False, None
        node = node[key]
    return True, node


def interpret(data: dict[str, Any], path: Path, notices: list[str]) -> dict[str, Any]:
    """The settings one file sets, by field name. Bad values and unknown keys become notices."""
    values: dict[str, Any] = {}
    used: set[str] = {"mcpServers", "$schema", FOLDER_TRUST_KEY, "hooks", "hooksConfig", *_QUIET}
    if isinstance(data.get("model"), str):  # the oldest spelling: "model": "gemini-2.5-flash"
        values["model_name"] = data["model"]
        used.add("model")
    for field_name, (paths, convert) in _KEYS.items():
        for dotted in paths:
            found, value = _lookup(data, dotted)
            if not found:
                continue
            parts = dotted.split(".")
            used.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
            if field_name in values:
                continue  # a newer spelling already set it
            try:
                values[field_name] = convert(value)
            except _Partly as exc:
                notices.append(f"{path}: {dotted} {exc}.")
                if exc.kept:
                    values[field_name] = exc.kept
            except ValueError as exc:
                notices.append(f"{path}: {dotted} {exc}; ignored.")
    if "hooks" in data:
        from gemini_tui.core.approvals.hooks import read_hooks

        values["hooks"] = read_hooks(data["hooks"], path, notices, data.get("hooksConfig"))
    servers = data.get("mcpServers")
    if servers is not None:
        values["mcp_servers"] = _mcp_servers(servers, path, notices)
    unknown = [key for key in data if key not in used and key not in _SECTIONS]
    for section in _SECTIONS:
        if section in _QUIET:
            continue  # general.vimMode and the like: settings every Gemini CLI user has, none of them wrong
        if isinstance(data.get(section), dict):
            unknown += [f"{section}.{key}" for key in data[section]
                        if f"{section}.{key}" not in used and not any(u.startswith(f"{section}.{key}.") for u in used)]
        elif section in data and section not in used:
            unknown.append(section)
    if unknown:
        notices.append(f"{path}: ignored settings gemini-tui does not use: {', '.join(sorted(unknown))}.")
    return values


def _mcp_servers(servers: Any, path: Path, notices: list[str]) -> dict[str, McpServerConfig]:
    if not isinstance(servers, dict):
        notices.append(f"{path}: mcpServers must be an object of named servers; ignored.")
        return {}
    parsed: dict[str, McpServerConfig] = {}
    for alias, entry in servers.items():
        try:
            config = McpServerConfig.model_validate(entry)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'entry'}: {e['msg']}"
                                 for e in exc.errors())
            notices.append(f"{path}: mcpServers.{alias} is not valid ({problems}); this server is skipped.")
            continue
        if not (config.command or config.url or config.http_url):
            notices.append(f"{path}: mcpServers.{alias} needs command, url or httpUrl; this server is skipped.")
            continue
        if config.auth_provider_type not in (None, "dynamic_discovery"):
            notices.append(f"{path}: mcpServers.{alias}.authProviderType {config.auth_provider_type!r} is not "
                           "supported by gemini-tui; the server is connected without it (OAuth still applies if it "
                           "asks).")
        parsed[alias] = config
    return parsed


_ADDS_UP = ("tools_exclude", "include_directories", "mcp_servers", *_RESTRICTIONS)


def _key_sources(data: dict[str, Any], path: Path, values: dict[str, Any]) -> dict[str, list[str]]:
    """Where each value this file set came from, as "<file>: <key>" (for /permissions)."""
    found: dict[str, list[str]] = {}
    for name in values:
        if name == "mcp_servers":
            found[name] = [f"{path}: mcpServers.{alias}" for alias in values[name]]
            continue
        paths = _KEYS[name][0] if name in _KEYS else ("model",)
        dotted = next((d for d in paths if _lookup(data, d)[0]), paths[0])
        found[name] = [f"{path}: {dotted}"]
    return found


def withhold(data: dict[str, Any], path: Path) -> tuple[dict[str, Any], list[str]]:
    """`data` without the keys an untrusted folder may not set, and those keys as "<file>: <key>": the
    `NEEDS_TRUST` keys, a model name with a provider prefix, and every endpoint (they choose where prompts go)."""
    kept = json.loads(json.dumps(data))  # a deep copy: the caller's dict stays as read
    withheld: list[str] = []
    for dotted in NEEDS_TRUST:
        *parents, leaf = dotted.split(".")
        node: Any = kept
        for key in parents:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict) and leaf in node:
            del node[leaf]
            withheld.append(f"{path}: {dotted}")
    model = kept.get("model")
    for parent, leaf, dotted in ((kept, "model", "model"), (model, "name", "model.name")):
        if isinstance(parent, dict) and isinstance(parent.get(leaf), str) and names_another_provider(parent[leaf]):
            del parent[leaf]
            withheld.append(f"{path}: {dotted} (names another provider)")
    withheld += [f"{path}: {dotted}" for dotted in _drop_endpoints(kept, "")]
    return kept, withheld


def _drop_endpoints(node: dict[str, Any], prefix: str) -> list[str]:
    dropped: list[str] = []
    for key in list(node):
        dotted = f"{prefix}{key}"
        if _ENDPOINT_KEY.search(key) and not isinstance(node[key], dict | bool):
            del node[key]
            dropped.append(dotted)
        elif isinstance(node[key], dict):
            dropped += _drop_endpoints(node[key], f"{dotted}.")
    return dropped


def _references(node: Any, prefix: str = "") -> list[str]:
    """The dotted keys whose text names an environment variable (`$VAR`, `${VAR}`)."""
    match node:
        case str():
            return [prefix or "(top)"] if _VAR.search(node) else []
        case list():
            return [key for item in node for key in _references(item, prefix)][:1]
        case dict():
            return [key for k, v in node.items() for key in _references(v, f"{prefix}.{k}" if prefix else k)]
    return []


def _folder_trust_enabled(user_data: dict[str, Any], path: Path, notices: list[str]) -> bool:
    found, value = _lookup(user_data, f"{FOLDER_TRUST_KEY}.enabled")
    if not found:
        return True  # as Gemini CLI: on unless the user turns it off
    if isinstance(value, bool):
        return value
    notices.append(f"{path}: {FOLDER_TRUST_KEY}.enabled must be true or false; folder trust stays on.")
    return True


def load_settings(root: Path, home: Path | None = None, env: Mapping[str, str] | None = None, *,
                  trust_flag: bool = False) -> Settings:
    """Reads `<home>/.gemini/settings.json` then `<root>/.gemini/settings.json` (workspace wins; MCP servers
    are merged by alias, `tools.exclude` lists joined). Never raises on bad content: problems are in `notices`.

    In a folder that is not trusted (see core/trust.py; `trust_flag` is `--trust`), the workspace file's
    `NEEDS_TRUST` keys are not applied: they are listed in `withheld` and in one notice."""
    env = os.environ if env is None else env
    home = home if home is not None else gemini_home(env)
    notices: list[str] = []
    merged: dict[str, Any] = {}
    origins: dict[str, dict[str, str]] = {}
    files: list[Path] = []
    user_file = home / ".gemini" / SETTINGS_FILE
    workspace_file = Path(root) / ".gemini" / SETTINGS_FILE
    same = user_file.resolve() == workspace_file.resolve()
    user_data = read_settings_file(user_file, env, notices) if user_file.is_file() else {}
    enabled = _folder_trust_enabled(user_data, user_file, notices)
    trust = check_trust(Path(root), home / ".gemini", enabled=enabled, flag=trust_flag, env=env)
    notices.extend(trust.errors)
    withheld: list[str] = []
    trust_notices: list[str] = []  # also in `notices`; front ends that say little else (ACP) say these
    key_sources: dict[str, list[str]] = {}
    sources = [(user_file, user_data)] if user_file.is_file() else []
    if not same and workspace_file.is_file():
        # an untrusted folder's file is read as written: a `$GEMINI_API_KEY` in a URL, a header or a model name
        # must not carry the user's secret to wherever the file points
        data = read_settings_file(workspace_file, env if trust.trusted else {}, notices)
        if not trust.trusted and (unexpanded := list(dict.fromkeys(_references(data)))):
            trust_notices.append(f"{workspace_file}: environment variables are not expanded in an untrusted folder's "
                           f"settings; kept as written in: {', '.join(unexpanded)}.")
        if _lookup(data, FOLDER_TRUST_KEY)[0]:
            notices.append(f"{workspace_file}: {FOLDER_TRUST_KEY} is read from the user settings "
                           f"({user_file}) only; ignored here.")
        if not trust.trusted:
            data, withheld = withhold(data, workspace_file)
        sources.append((workspace_file, data))
    for path, data in sources:
        files.append(path)
        values = interpret(data, path, notices)
        for name, where in _key_sources(data, path, values).items():
            # lists that add up keep every file; anything else is the last file's
            kept = key_sources.get(name, []) if name in _ADDS_UP else []
            key_sources[name] = [*kept, *where]
        servers = {**merged.get("mcp_servers", {}), **values.pop("mcp_servers", {})}
        for name in _RULE_SETTINGS:
            for rule in values.get(name) or []:
                origins.setdefault(name, {})[rule] = str(path)
        for name in ("tools_exclude", "mcp_excluded"):  # deny rules add up: a project cannot lift the user's
            if name in values:
                values[name] = list(dict.fromkeys([*merged.get(name, []), *values[name]]))
        if "hooks" in values and "hooks" in merged:  # the user's hooks and a trusted workspace's both run
            combined = {event: list(groups) for event, groups in merged["hooks"].items()}
            for event, groups in values["hooks"].items():
                combined.setdefault(event, []).extend(groups)
            values["hooks"] = combined
        if "model_providers" in values:  # providers merge by name, as MCP servers do
            values["model_providers"] = {**merged.get("model_providers", {}), **values["model_providers"]}
        if "include_directories" in values:  # both files' directories are part of the workspace
            values["include_directories"] = list(dict.fromkeys([*merged.get("include_directories", []),
                                                                *values["include_directories"]]))
        for name in _RESTRICTIONS:
            if merged.get(name):
                values[name] = True
        if path == workspace_file and not same and not _asks_sandbox(values.get("sandbox", True)):
            # a project cannot turn off the sandbox (the user's own settings, --no-sandbox or GEMINI_SANDBOX can)
            notices.append(f"{path}: tools.sandbox: {values['sandbox']!r} is ignored: a project cannot turn the "
                           f"sandbox off; your own settings ({user_file}) or --no-sandbox can.")
            values["sandbox"] = merged.get("sandbox")
        merged.update(values)
        if servers:
            merged["mcp_servers"] = servers
    if withheld:
        keys = ", ".join(item.split(": ", 1)[1] for item in withheld)
        trust_notices.insert(0, f"{workspace_file}: not applied, this folder is not trusted ({trust.why}): {keys}. "
                                f"Trust it with /permissions trust (from the next start), run with --trust, or add "
                                f"it to {home / '.gemini' / 'trustedFolders.json'}.")
    notices.extend(trust_notices)
    return Settings(home=home, files=files, notices=notices, folder_trust_enabled=enabled, trust=trust,
                    withheld=withheld, trust_notices=trust_notices, key_sources=key_sources, origins=origins, **merged)


def trust_question(root: Path, home: Path | None = None, env: Mapping[str, str] | None = None) -> list[str]:
    """What the app asks the user to trust on a first start here, when no decision covers this folder yet: the
    withheld settings, and the project's own custom commands and extensions (loaded only when trusted)."""
    settings = load_settings(root, home, env)
    if settings.trust.source is not TrustSource.undecided:
        return []
    found = list(settings.withheld)
    for folder, what in (("commands", "custom commands"), ("extensions", "extensions")):
        path = Path(root) / ".gemini" / folder
        if path.is_dir() and path.resolve() != (settings.gemini_dir / folder).resolve() and any(path.iterdir()):
            found.append(f"{path}: {what}")
    return found


def record_trust(root: Path, level: str, home: Path | None = None) -> Path:
    """Saves the user's answer for `root` into trustedFolders.json; returns the file."""
    from gemini_tui.core.approvals.trust import TrustLevel

    folders = TrustedFolders.load((home if home is not None else gemini_home()) / ".gemini")
    folders.set(Path(root).resolve(), TrustLevel(level))
    return folders.path


def save_user_setting(dotted: str, value: Any, home: Path | None = None) -> Path:
    """Sets one key (`geminiTui.theme`) in the user's settings.json, keeping every other key: read, change, replace
    atomically under a lock. Refuses (ValueError) a file with comments or that is not a JSON object, rather
    than lose what the user wrote."""
    import json

    from gemini_tui.core.persistence.private_file import locked

    path = (home or gemini_home()) / ".gemini" / SETTINGS_FILE
    with locked(path):
        data: dict[str, Any] = {}
        if path.exists():
            text = path.read_text(encoding="utf-8")
            if strip_json_comments(text) != text:
                raise ValueError(f"{path} has comments, which saving would drop; set {dotted} there yourself.")
            loaded = json.loads(text) if text.strip() else {}
            if not isinstance(loaded, dict):
                raise ValueError(f"{path} is not a JSON object; set {dotted} there yourself.")
            data = loaded
        node = data
        *parents, last = dotted.split(".")
        for key in parents:
            child = node.get(key)
            if not isinstance(child, dict):
                child = node[key] = {}
            node = child
        node[last] = value
        temp = path.with_name(f".{path.name}.tmp")
        temp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        temp.replace(path)
    return path
