"""`GeminiTuiAgent`: gemini-tui as one of Harbor's installed agents (`harbor run -a gemini_tui.harbor:GeminiTuiAgent`).

Harbor installs it in the task's container (`uv tool install`, or pipx), runs it headless there with the task's
instruction (`-o stream-json`, teed to the agent's logs folder) and reads back the ATIF trajectory gemini-tui
writes itself (`--trajectory`). Only Harbor's agent base and trajectory models are imported: nothing of
gemini-tui's own core, which runs inside the container, not here."""

from __future__ import annotations

import json
import shlex
from pathlib import Path, PurePosixPath
from typing import Any, ClassVar

from harbor.agents.capabilities import AgentCapabilities
from harbor.agents.installed.base import (
    AgentAuthenticationError,
    BaseInstalledAgent,
    CliFlag,
    EnvVar,
    ErrorPattern,
    with_prompt_template,
)
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext
from harbor.models.trajectories import Trajectory

from gemini_tui import __version__

APPROVAL_MODES = ["default", "auto_edit", "plan", "yolo"]
STREAM_LOG = "gemini-tui.jsonl"  # the run's stream-json events
STDERR_LOG = "gemini-tui.stderr.txt"  # notices and errors
TRAJECTORY = "trajectory.json"  # where Harbor looks for an agent's ATIF trajectory
# Harbor names models `provider/model`; gemini-tui's own providers keep theirs (`openai/gpt-...`, `ollama/...`)
GEMINI_PROVIDER = "gemini/"
PATH_SETUP = 'export PATH="$HOME/.local/bin:$PATH"'  # where `uv tool install` and pipx put the program


def model_argument(model_name: str | None) -> str | None:
    """Harbor's model name as gemini-tui's `-m`: `gemini/gemini-2.5-pro` is `gemini-2.5-pro`."""
    if not model_name:
        return None
    return model_name.removeprefix(GEMINI_PROVIDER)


def mcp_settings(servers: list[Any]) -> dict[str, Any]:
    """Harbor's task MCP servers as gemini-tui's `mcpServers` settings (the user's own, so they connect in any
    folder)."""
    entries: dict[str, Any] = {}
    for server in servers:
        match server.transport:
            case "stdio":
                entries[server.name] = {"command": server.command, "args": list(server.args)}
            case "streamable-http":
                entries[server.name] = {"url": server.url, "type": "http"}
            case _:
                entries[server.name] = {"url": server.url, "type": "sse"}
        if getattr(server, "headers", None):
            entries[server.name]["headers"] = dict(server.headers)
    return entries


class GeminiTuiAgent(BaseInstalledAgent):
    """gemini-tui in Harbor's container: headless, every call allowed inside the container (`--approval-mode
    yolo` by default: the container is the boundary), its trajectory in ATIF."""

    capabilities = AgentCapabilities(atif=True, resume=True, mcp_servers=True, skills=True)
    CLI_FLAGS: ClassVar[list[CliFlag]] = [
        CliFlag("approval_mode", cli="--approval-mode", type="enum", choices=APPROVAL_MODES, default="yolo",
                env_fallback="GEMINI_TUI_APPROVAL_MODE"),
        CliFlag("sandbox", cli="--sandbox", type="bool", env_fallback="GEMINI_SANDBOX"),
    ]
    ENV_VARS: ClassVar[list[EnvVar]] = [
        EnvVar("api_key", env="GEMINI_API_KEY", env_fallback="GEMINI_API_KEY"),
        EnvVar("google_api_key", env="GOOGLE_API_KEY", env_fallback="GOOGLE_API_KEY"),
        EnvVar("gemini_base_url", env="GOOGLE_GEMINI_BASE_URL", env_fallback="GOOGLE_GEMINI_BASE_URL"),
        EnvVar("openai_api_key", env="OPENAI_API_KEY", env_fallback="OPENAI_API_KEY"),
        # the task's folder is the agent's to work in: its .gemini settings apply (as with --trust)
        EnvVar("trust_workspace", env="GEMINI_CLI_TRUST_WORKSPACE", type="bool", default=True),
    ]
    # nothing can reach the model (exit 41; said in stream-json's error result on stdout): an authentication
    # failure, not a crash
    ERROR_PATTERNS: ClassVar[list[ErrorPattern]] = [
        *BaseInstalledAgent.ERROR_PATTERNS,
        ErrorPattern(r"No model can be reached", AgentAuthenticationError),
    ]

    def __init__(self, *args: Any, package: str | None = None, wheel: str | Path | None = None,
                 **kwargs: Any) -> None:
        """`package`: what `uv tool install` installs (default `gemini-tui`, at `version` when given); `wheel`: a
        gemini-tui wheel on the host, uploaded and installed instead."""
        super().__init__(*args, **kwargs)
        self._package = package
        self._wheel = Path(wheel) if wheel is not None else None

    @staticmethod
    def name() -> str:
        return "gemini-tui"

    def get_version_command(self) -> str | None:
        return f"{PATH_SETUP}; gemini-tui --version"

    def parse_version(self, stdout: str) -> str:
        return stdout.strip().removeprefix("gemini-tui").strip()

    def _requirement(self) -> str:
        if self._package:
            return self._package
        return f"gemini-tui=={self._version}" if self._version else "gemini-tui"

    def install_command(self, source: str) -> str:
        """Installs `source` (a requirement or a wheel's path) as a tool of its own: uv when it can be had,
        else pipx; either way `gemini-tui` ends up in ~/.local/bin."""
        quoted = shlex.quote(source)
        return (
            f"set -euo pipefail; {PATH_SETUP}; "
            "if ! command -v uv >/dev/null 2>&1 && ! command -v pipx >/dev/null 2>&1; then "
            "curl -LsSf https://astral.sh/uv/install.sh | sh; fi; "
            f"if command -v uv >/dev/null 2>&1; then uv tool install --force --python 3.12 {quoted}; "
            f"else pipx install --force {quoted}; fi; "
            "gemini-tui --version"
        )

    async def install(self, environment: BaseEnvironment) -> None:
        await self.ensure_system_dependencies(environment, ("curl",))
        source = self._requirement()
        if self._wheel is not None:
            source = f"/installed-agent/{self._wheel.name}"
            await environment.upload_file(self._wheel, source)
        await self.exec_as_agent(environment, command=self.install_command(source))

    def settings_command(self) -> str | None:
        """The task's MCP servers into the agent user's ~/.gemini/settings.json (merged into what is there)."""
        if not self.mcp_servers:
            return None
        servers = json.dumps(mcp_settings(self.mcp_servers))
        merge = ("import json, pathlib, sys; p = pathlib.Path.home() / '.gemini' / 'settings.json'; "
                 "s = json.loads(p.read_text()) if p.exists() else {}; "
                 "s.setdefault('mcpServers', {}).update(json.loads(sys.argv[1])); "
                 "p.parent.mkdir(parents=True, exist_ok=True); p.write_text(json.dumps(s, indent=2))")
        return f"python3 -c {shlex.quote(merge)} {shlex.quote(servers)}"

    def skills_command(self) -> str | None:
        if not self.skills_dir:
            return None
        return (f"mkdir -p ~/.gemini/skills && cp -r {shlex.quote(self.skills_dir)}/. ~/.gemini/skills/ "
                "2>/dev/null || true")

    async def configure(self, environment: BaseEnvironment) -> None:
        for command in (self.settings_command(), self.skills_command()):
            if command:
                await self.exec_as_agent(environment, command=command)

    def run_command(self, instruction: str) -> str:
        """The headless run: stream-json on stdout, teed to the logs folder; the ATIF trajectory beside it."""
        logs = self.environment_logs_dir.as_posix()
        model = model_argument(self.model_name)
        parts = ["gemini-tui", "-p", shlex.quote(instruction), "-o", "stream-json",
                 "--trajectory", shlex.quote(f"{logs}/{TRAJECTORY}")]
        if model:
            parts += ["-m", shlex.quote(model)]
        if self._resume:
            parts += ["--resume", "latest"]
        flags = self.build_cli_flags()
        if flags:
            parts.append(flags)
        return (f"{PATH_SETUP}; mkdir -p {shlex.quote(logs)}; "
                f"{' '.join(parts)} </dev/null 2>{shlex.quote(f'{logs}/{STDERR_LOG}')} "
                f"| tee {shlex.quote(f'{logs}/{STREAM_LOG}')}")

    @with_prompt_template
    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        await self.exec_as_agent(environment, command=self.run_command(instruction),
                                 env=self.resolve_env_vars())

    @property
    def remote_session_logs_dir(self) -> PurePosixPath | None:
        return None

    def convert_trajectory(self, logs_dir: Path) -> Trajectory | None:
        """gemini-tui's own ATIF file, validated: nothing to convert."""
        path = logs_dir / TRAJECTORY
        if not path.is_file():
            return None
        return Trajectory.model_validate_json(path.read_text(encoding="utf-8"))

    def populate_context_post_run(self, context: AgentContext) -> None:
        """Tokens from the trajectory's final metrics (prompt tokens include the cached ones, as Harbor counts
        input); the cost from LiteLLM's prices when Harbor has them (gemini-tui reports none)."""
        try:
            trajectory = self.convert_trajectory(self.logs_dir)
        except ValueError as exc:
            self.logger.warning(f"gemini-tui's trajectory does not validate: {exc}")
            return
        if trajectory is None or trajectory.final_metrics is None:
            return
        totals = trajectory.final_metrics
        context.n_input_tokens = totals.total_prompt_tokens
        context.n_output_tokens = totals.total_completion_tokens
        context.n_cache_tokens = totals.total_cached_tokens
        context.cost_usd = self._cost(totals.total_prompt_tokens or 0, totals.total_completion_tokens or 0,
                                      totals.total_cached_tokens or 0)
        context.metadata = {**(context.metadata or {}), "gemini_tui_version": trajectory.agent.version,
                            "adapter_version": __version__}

    def _cost(self, prompt: int, completion: int, cached: int) -> float | None:
        if not self.model_name:
            return None
        try:
            import litellm  # Harbor's own dependency; absent, the cost stays unknown rather than 0
        except ImportError:
            return None
        for key in (self.model_name, self.model_name.split("/", 1)[-1]):
            prices = litellm.model_cost.get(key)
            if prices:
                input_rate = prices.get("input_cost_per_token") or 0.0
                cached_rate = prices.get("cache_read_input_token_cost") or input_rate
                output_rate = prices.get("output_cost_per_token") or 0.0
                return max(0, prompt - cached) * input_rate + cached * cached_rate + completion * output_rate
        return None
