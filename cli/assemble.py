"""The wiring: settings, workspace, every built-in tool, the model; `build_session` returns a ready Session."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gemini_tui.core.approvals.grants import GrantStore
from gemini_tui.core.approvals.policy import ApprovalMode, ApprovalPolicy, policy_from_settings
from gemini_tui.core.approvals.policy_files import load_for_settings
from gemini_tui.core.ground.events import EventBus, Notice
from gemini_tui.core.ground.model_api import ModelClient
from gemini_tui.core.processes.sandbox import Sandbox, build_sandbox, sandbox_request
from gemini_tui.core.session.face import McpServers, ToolDiscovery
from gemini_tui.core.session.session import Session
from gemini_tui.core.setup.auth import gemini_key, resolve_auth
from gemini_tui.core.setup.config import Settings, load_settings
from gemini_tui.core.setup.user_setup import load_user_setup
from gemini_tui.core.tooling.registry import ToolRegistry
from gemini_tui.tools.glob import GlobTool
from gemini_tui.tools.list_directory import ListDirectoryTool
from gemini_tui.tools.read_file import ReadFileTool
from gemini_tui.tools.read_many_files import ReadManyFilesTool
from gemini_tui.tools.replace import ReplaceTool
from gemini_tui.tools.save_memory import SaveMemoryTool
from gemini_tui.tools.search_file_content import SearchFileContentTool
from gemini_tui.tools.shell import ShellTool
from gemini_tui.tools.web_fetch import WebFetchTool
from gemini_tui.tools.web_search import WebSearchTool
from gemini_tui.tools.workspace import Workspace
from gemini_tui.tools.write_file import WriteFileTool

if TYPE_CHECKING:
    from gemini_tui.core.models.openai_compat import OpenAICompatibleModel

log = logging.getLogger(__name__)
NO_TOOLS = "--no-tools"  # after an OpenAI-compatible model's name: a chat without tools


class ConfigurationError(Exception):
    """The configuration makes a run impossible (not a mere bad setting, which is only a notice)."""


class MissingKey(ConfigurationError):
    """No way to reach the model asked for, where falling back to the offline demo model would pass unnoticed (a
    headless or ACP run: a fleet would record the demo model's answers as the agent's)."""

# The file-system tools, each constructed as Tool(workspace). Imported directly: a broken tool module must fail
# loudly (and the tests with it), not leave the model without the tool.
FILE_TOOLS: tuple[type[Any], ...] = (
    ListDirectoryTool, ReadFileTool, WriteFileTool, GlobTool, ReadManyFilesTool, SearchFileContentTool, ReplaceTool,
)


def build_registry(settings: Settings, workspace: Workspace, env: Mapping[str, str] | None = None,
                   on_memory_saved: Callable[[], Any] | None = None, sandbox: Sandbox | None = None) -> ToolRegistry:
    """Every built-in tool the settings allow (`tools.core` / `tools.exclude`)."""
    registry = ToolRegistry(allow=settings.tools_core, deny=settings.tools_exclude)
    for cls in FILE_TOOLS:
        registry.register(cls(workspace))
    register_extension_tools(registry, settings, workspace, env, on_memory_saved, sandbox)
    return registry


def build_command_sandbox(settings: Settings, root: Path, env: Mapping[str, str], flag: bool | None,
                          included: Sequence[Path] = ()) -> Sandbox:
    """The sandbox commands run in (on by default; `--sandbox`/`--no-sandbox` as `flag` True/False,
    `GEMINI_SANDBOX`, `tools.sandbox`), the root and the included directories writable; checked by starting it
    once. One asked for by name and unusable refuses every command; the default one unusable runs them bare."""
    request = sandbox_request(bool(flag), env, settings.sandbox, settings.sandbox_network, off=flag is False,
                              extra_writable=[Path(os.path.expanduser(p)) for p in settings.sandbox_writable_roots])
    return build_sandbox(request, [root, *included], env, settings.context_file_names)


# -- extensions: shell, web, memory, command discovery. MCP servers connect later (async), see start_mcp. --------
def register_extension_tools(registry: ToolRegistry, settings: Settings, workspace: Workspace,
                             env: Mapping[str, str] | None = None,
                             on_memory_saved: Callable[[], Any] | None = None,
                             sandbox: Sandbox | None = None) -> None:
    """The built-ins beyond the file system, and tools found by `tools.discoveryCommand`."""
    env = os.environ if env is None else env

    registry.register(ShellTool(workspace, sandbox=sandbox))
    registry.register(WebFetchTool(allow_private=settings.web_fetch_private_addresses))
    registry.register(WebSearchTool(api_key(env), base_url=env.get("GOOGLE_GEMINI_BASE_URL") or None))
    registry.register(SaveMemoryTool(settings.gemini_dir, on_saved=on_memory_saved,
                                     file_name=settings.context_file_names[0]))


def attach_sessions(session: Session, settings: Settings, root: Path) -> None:
    """Autosave into `~/.gemini/tmp/<project>/chats/` (after pruning old sessions as `general.sessionRetention`
    asks), and checkpoints in a shadow repository unless `general.checkpointing.enabled` is false."""
    from gemini_tui.core.persistence.store import SessionStore, parse_age, project_dir

    store = SessionStore(project_dir(settings.gemini_dir, root))
    session.saved.enable(store)
    if settings.checkpointing_enabled:
        from gemini_tui.core.persistence.checkpoints import Checkpointer, shadow_dir
        from gemini_tui.core.persistence.shadow_repo import ShadowRepo
        from gemini_tui.tools.workspace.restore import ConfinedRestorer

        repo = ShadowRepo(root, shadow_dir(settings.gemini_dir, root))
        session.rewind.enable(Checkpointer(repo, ConfinedRestorer(root), session.report), session.scheduler)
    if settings.session_retention_enabled and (settings.session_retention_max_count
                                               or settings.session_retention_max_age):
        age = parse_age(settings.session_retention_max_age) if settings.session_retention_max_age else None
        try:
            store.prune(max_count=settings.session_retention_max_count, max_age_s=age)
        except OSError as exc:
            session.report(f"Old sessions could not be pruned: {exc}")


def attach_agents(session: Session, settings: Settings, registry: ToolRegistry, root: Path,
                  extensions: Sequence[Any] = ()) -> None:
    """Subagents (`invoke_agent`): the built-ins, the user's, the trusted project's acknowledged ones and the
    extensions'; they run with the session's tools, approvals and model. Problems found are notices."""
    from gemini_tui.core.agents.catalog import load_catalog
    from gemini_tui.core.agents.subagent import AgentHost
    from gemini_tui.tools.invoke_agent import InvokeAgentTool

    catalog = load_catalog(settings.gemini_dir, root, trusted=settings.workspace_trusted,
                           overrides=settings.agents_overrides,
                           extension_folders=[(ext.name, ext.path) for ext in extensions])
    for problem in catalog.notices:
        session.report(problem)
    host = AgentHost(registry, session.scheduler, lambda: session.model, root, model_factory=session.model_factory,
                     memory=lambda: session.memory.text, stats=session.stats,
                     max_parallel=settings.agents_max_parallel)
    registry.register(InvokeAgentTool(catalog, host))


def attach_edit_fixer(session: Session, settings: Settings, registry: ToolRegistry) -> None:
    """`replace`'s model tier asks the session's current model (never the offline one), unless
    tools.disableLLMCorrection is set."""
    from gemini_tui.core.models.edit_fixer import ModelEditFixer

    tool = registry.get("replace")
    if not isinstance(tool, ReplaceTool) or settings.disable_llm_correction:
        return
    tool.fixer = ModelEditFixer(lambda: session.model, session.stats)


def build_discovery(settings: Settings, root: Path, sandbox: Sandbox | None = None) -> ToolDiscovery | None:
    """`tools.discoveryCommand` starts now, on a thread; the session registers its tools (and reports its
    problems) when it ends, so a slow or hanging command never holds up the session being built."""
    if not settings.discovery_command:
        return None
    from gemini_tui.core.tooling.discovered_tool import BackgroundDiscovery

    return BackgroundDiscovery(settings.discovery_command, settings.call_command, cwd=str(root), sandbox=sandbox)


def build_mcp(settings: Settings, registry: ToolRegistry, bus: EventBus, root: Path,
              roots: Callable[[], list[Path]] | None = None, policy: ApprovalPolicy | None = None,
              notices: list[Notice] | None = None) -> McpServers | None:
    """An McpManager for `mcpServers`; it connects when the session starts (the `mcp` SDK loads only then).
    `roots` are the workspace directories offered to servers as roots. Servers the `policy` refuses
    (`mcp.excluded`, not in `mcp.allowed` / `--allowed-mcp-server-names`) never connect; a notice in `notices`
    says which and why."""
    servers = {}
    for alias, config in settings.mcp_servers.items():
        refusal = policy.server_refusal(alias) if policy is not None else None
        if refusal is None:
            servers[alias] = config
        elif notices is not None:
            notices.append(Notice(f"MCP server {alias} is not connected: {refusal}.", "warning"))
    if not servers:
        return None
    from gemini_tui.core.mcp import McpManager
    from gemini_tui.core.mcp.oauth import STORE_FILE

    return McpManager(servers, registry, bus, root=root, roots=roots,
                      oauth_store=settings.gemini_dir / STORE_FILE)


def build_hooks(settings: Settings, root: Path, env: Mapping[str, str]) -> Any:
    """BeforeTool / AfterTool hooks from the settings (None when there are none)."""
    if not any(settings.hooks.values()):
        return None
    from gemini_tui.core.approvals.hooks import Hooks

    return Hooks(settings.hooks, root, env=env)


# -- the model -------------------------------------------------------------------------------------------------
def api_key(env: Mapping[str, str]) -> str | None:
    return gemini_key(env)


def choose_model_name(flag: str | None, settings: Settings, env: Mapping[str, str]) -> str:
    """`-m`, then `GEMINI_MODEL`, then settings `model.name`, then the default."""
    from gemini_tui.core.setup.config import DEFAULT_MODEL

    return flag or env.get("GEMINI_MODEL") or settings.model_name or DEFAULT_MODEL


def _check_base_url(name: str, base_url: str | None) -> None:
    if base_url is not None and not base_url.startswith(("http://", "https://")):
        raise ConfigurationError(f"{name} must be an http(s) URL, not {base_url!r}.")


def build_model(name: str, root: Path, env: Mapping[str, str], settings: Settings | None = None,
                offline_without_key: bool = True) -> tuple[ModelClient, str | None]:
    """The client for `name` through the chosen authentication (core/auth.py), and a notice when it is the
    offline demo model (or when the chosen method needed a word). Without a usable key the offline demo model
    stands in, unless `offline_without_key` is False: then MissingKey (only `-m offline` names it)."""
    from gemini_tui.core.models.offline import OFFLINE_MODEL_NAME, OfflineModel

    if name == OFFLINE_MODEL_NAME:
        return OfflineModel(root), "Using the offline demo model (-m offline): it follows fixed phrases; try 'help'."
    if (other := build_openai_compatible(name, env, settings)) is not None:
        return other, None if other.tools_enabled else f"{other.model_name} is sent no tools (a chat only)."
    if not name.strip() or any(ch.isspace() for ch in name):
        raise ConfigurationError(f"{name!r} is not a model name (from -m, GEMINI_MODEL or model.name).")
    auth = resolve_auth(settings.auth_selected_type if settings else None, env)
    if not auth.usable and not offline_without_key:
        raise MissingKey(f"{auth.problem} No model can be reached, so nothing was run; set the key, or ask for the "
                         f"offline demo model by name (-m {OFFLINE_MODEL_NAME}).")
    if not auth.usable:
        return OfflineModel(root), (f"{auth.problem} Using the offline demo model, not Gemini: it follows fixed "
                                    "phrases such as 'list .' or 'read README.md'.")
    from gemini_tui.core.models.gemini import GeminiModel

    _check_base_url("GOOGLE_VERTEX_BASE_URL" if auth.vertex else "GOOGLE_GEMINI_BASE_URL", auth.base_url)
    model = GeminiModel(name, auth.api_key, base_url=auth.base_url, vertex=auth.vertex, project=auth.project,
                        location=auth.location)
    return model, auth.note or None


def build_openai_compatible(name: str, env: Mapping[str, str],
                            settings: Settings | None = None) -> OpenAICompatibleModel | None:
    """`openai/<model>`, `ollama/<model>` or `<provider>/<model>` of `model.providers`: a Chat Completions
    client (core/models/openai_compat.py); None for any other name. A trailing ` --no-tools` (from `/model`)
    sends the model no tools."""
    from gemini_tui.core.models.providers import OPENAI_BASE_URL, ProviderError, resolve_provider, split_model_name

    providers = settings.model_providers if settings else {}
    name, no_tools = name.strip(), False
    if name.endswith(NO_TOOLS):
        name, no_tools = name.removesuffix(NO_TOOLS).strip(), True
    found = split_model_name(name, providers)
    if found is None:
        return None
    if any(ch.isspace() for ch in name):
        raise ConfigurationError(f"{name!r} is not a model name (from -m, /model or model.name).")
    from gemini_tui.core.models.openai_compat import OpenAICompatibleModel

    try:
        provider = resolve_provider(found[0], providers, env)
    except ProviderError as exc:
        raise ConfigurationError(f"{exc}.") from exc
    if provider.name == "openai" and provider.base_url == OPENAI_BASE_URL and not provider.api_key:
        raise ConfigurationError("openai/ models need OPENAI_API_KEY (or OPENAI_BASE_URL for another server, "
                                 "such as a local one).")
    return OpenAICompatibleModel(provider, found[1], tools=False if no_tools else None)


def attach_plan_tools(session: Session, registry: ToolRegistry, workspace: Workspace) -> None:
    """Plan mode's tools (enter, exit, ask_user, write_todos), given the session's mode switch and plans folder."""
    from gemini_tui.tools.ask_user import AskUserTool
    from gemini_tui.tools.enter_plan_mode import EnterPlanModeTool
    from gemini_tui.tools.exit_plan_mode import ExitPlanModeTool
    from gemini_tui.tools.write_todos import WriteTodosTool

    plans = session.plans
    if session.approval_mode is ApprovalMode.plan:  # started in plan mode: the plan's folder is ready now
        session.open_plans()
    for tool in (EnterPlanModeTool(session.switch_mode, plans),
                 ExitPlanModeTool(session.switch_mode, plans, lambda: session.scheduler.interactive,
                                  session.plan_approved),
                 AskUserTool(), WriteTodosTool()):
        registry.register(tool)


def build_session(root: Path | str | None = None, *, model: str | None = None,
                  approval_mode: ApprovalMode | str | None = ApprovalMode.default, interactive: bool = True,
                  bus: EventBus | None = None, env: Mapping[str, str] | None = None, home: Path | None = None,
                  settings: Settings | None = None, prewarm: bool = False, trust: bool = False,
                  sandbox: bool | None = None,
                  allowed_mcp_server_names: list[str] | None = None,
                  model_factory: Callable[[str, Path, Mapping[str, str]], tuple[ModelClient, str | None]]
                  | None = None, extensions: Sequence[str] | None = None,
                  include_directories: Sequence[str] = (), offline_without_key: bool = True) -> Session:
    """Loads settings, builds the workspace, registers the tools, picks the model, returns the Session.

    `approval_mode` None takes the settings' `general.defaultApprovalMode` (else default). `trust` is --trust,
    `sandbox` --sandbox (True), --no-sandbox (False) or neither (None: on by default). `offline_without_key`
    False (headless, ACP) raises MissingKey where the app would fall back to the offline demo model.
    Problems with settings and the offline notice are in `session.notices` (and published on its bus).
    Raises ConfigurationError when the configuration makes a run impossible."""
    env = os.environ if env is None else env
    root = Path(root or os.getcwd()).resolve()
    if not root.is_dir():
        raise ConfigurationError(f"the workspace root {root} is not a directory.")
    settings = settings or load_settings(root, home=home, env=dict(env), trust_flag=trust)
    setup = load_user_setup(settings, root, extensions, include_directories)
    settings = setup.settings
    mode = ApprovalMode(approval_mode or settings.default_approval_mode or ApprovalMode.default)
    files = load_for_settings(settings, root, [(e.name, e.path / "policies") for e in setup.extensions])
    policy = policy_from_settings(settings, root, grants=GrantStore(root, settings.gemini_dir),
                                  allowed_mcp_server_names=allowed_mcp_server_names, files=files)
    try:
        policy.set_mode(mode)
    except PermissionError as exc:  # security.disableYoloMode and --yolo: refuse to start rather than run unasked
        raise ConfigurationError(f"{exc} Run without --yolo (or --approval-mode yolo).") from exc
    # the model first: with `prewarm` (headless), a Gemini client warms up on a thread while the tools are built;
    # the app does not want it (its first frame must not share the interpreter with that import)
    from gemini_tui.core.models.auto_model import auto_model

    make_model = model_factory or (lambda name, root, env: build_model(name, root, env, settings,
                                                                       offline_without_key))

    def configured_model(name: str, root: Path, env: Mapping[str, str]) -> tuple[ModelClient, str | None]:
        if (alias := auto_model(name)) is not None:  # a subagent's `model: auto`: no server knows the alias
            name = alias.pro
        built, notice = make_model(name, root, env)
        if hasattr(built, "idle_timeout_s"):  # model.streamIdleTimeout, also for a model switched to later
            setattr(built, "idle_timeout_s", settings.stream_idle_timeout_s)  # noqa: B010 (not on the protocol)
        if hasattr(built, "headless"):  # its advice names what this front end takes: `-m` or `/model`
            setattr(built, "headless", not interactive)  # noqa: B010 (not on the protocol)
        return built, notice

    chosen = choose_model_name(model, settings, env)
    auto = auto_model(chosen)  # `auto`, `auto-gemini-3`: no server knows the alias; its Pro model is asked
    client, offline_notice = configured_model(auto.pro if auto else chosen, root, env)
    if prewarm and callable(warm := getattr(client, "prewarm", None)):
        warm()
    workspace = Workspace(root, setup.include_dirs)
    sessions: list[Session] = []  # save_memory is built before the session whose memory it must refresh
    command_sandbox = build_command_sandbox(settings, root, env, sandbox, setup.include_dirs)
    policy.sandboxed = command_sandbox.active
    policy.extra_roots = [Path(p) for p in setup.include_dirs]
    registry = build_registry(settings, workspace, env, lambda: [s.refresh_memory() for s in sessions],
                              command_sandbox)
    if setup.skills.enabled:  # activating one widens the workspace to its folder
        from gemini_tui.tools.activate_skill import ActivateSkillTool

        registry.register(ActivateSkillTool(setup.skills, lambda folder: sessions[0].add_directory(str(folder))))
    bus = bus or EventBus()
    notices = [Notice(text, "warning") for text in [*settings.notices, *setup.notices, *files.notices]]
    if command_sandbox.problem is not None:
        notices.append(Notice(f"Shell commands will be refused: {command_sandbox.problem}", "error"))
    if command_sandbox.fallback is not None:
        notices.append(Notice(command_sandbox.fallback, "warning"))
    if offline_notice:
        notices.append(Notice(offline_notice, "warning"))
    session = Session(settings, registry, client, root, bus, approval_mode=mode,
                      interactive=interactive, mcp=build_mcp(settings, registry, bus, root, lambda: [
                          root, *(sessions[0].include_dirs if sessions else setup.include_dirs)], policy, notices),
                      discovery=build_discovery(settings, root, command_sandbox), notices=notices,
                      sandbox=command_sandbox, policy=policy, hooks=build_hooks(settings, root, env),
                      auth=resolve_auth(settings.auth_selected_type, env),
                      model_factory=lambda name: configured_model(name, root, env), workspace=workspace,
                      setup=setup, auto=auto)
    if session.scheduler.hooks is not None:
        session.scheduler.hooks.session_id = session.session_id
    sessions.append(session)
    attach_plan_tools(session, registry, workspace)
    attach_agents(session, settings, registry, root, setup.extensions)
    attach_edit_fixer(session, settings, registry)
    attach_sessions(session, settings, root)
    # every GEMINI.md is read now, while the session is built (off the first frame, before a headless run prints):
    # a broken @import, or a context file linking out of the project, is said at start, not mid-way through the
    # first turn when the system instruction is first asked for
    session.refresh_memory()
    return session
