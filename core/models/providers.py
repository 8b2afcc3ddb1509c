"""Models room: which OpenAI-compatible server a `provider/model` name reaches (base URL, key, headers, window)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

OPENAI_BASE_URL = "https://api.openai.com/v1"
OLLAMA_BASE_URL = "http://localhost:11434/v1"
# A local model's window is rarely the 1M of Gemini; a wrong large guess would never compress, so an unknown
# model gets a modest one until the server or `contextWindow` says better.
DEFAULT_CONTEXT_WINDOW = 32_768
BUILT_IN = ("openai", "ollama")


class ProviderError(ValueError):
    """A provider that cannot be used as configured (no base URL, a URL that is not http(s))."""


@dataclass(frozen=True)
class Provider:
    """Where `name/<model>` requests go. `api_key` None: the server takes none (a local one)."""

    name: str
    base_url: str
    api_key: str | None = None
    key_env: str | None = None  # where the key comes from, for error messages
    headers: dict[str, str] = field(default_factory=dict)
    context_window: int | None = None  # from settings; else the server's, else DEFAULT_CONTEXT_WINDOW
    tools: bool = True  # false: the model is sent no tools (a model without function calling)
    # more request fields for this server (OpenRouter `provider`, vLLM sampling, a forced `tool_choice`);
    # the fields we set ourselves (model, messages, tools, stream) win
    extra_body: dict[str, Any] = field(default_factory=dict)

    @property
    def origin(self) -> str:
        """scheme://host:port, as said in "nothing answers at ..." (the path is noise there)."""
        parts = urlsplit(self.base_url)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def is_local(self) -> bool:
        host = (urlsplit(self.base_url).hostname or "").lower()
        return host in ("localhost", "::1", "0.0.0.0") or host.startswith("127.")

    @property
    def hint(self) -> str:
        """What to check when nothing answers."""
        return "is Ollama running?" if self.name == "ollama" else "is the server running?"


def split_model_name(name: str, providers: Mapping[str, Any] | None = None) -> tuple[str, str] | None:
    """("ollama", "llama3.2") for "ollama/llama3.2", for the built-in providers and those declared in
    `model.providers`; None for any other name (a Gemini model, `models/gemini-...`)."""
    prefix, slash, model = name.partition("/")
    if not slash or not model:
        return None
    if prefix in BUILT_IN or prefix in (providers or {}):
        return prefix, model
    return None


def is_provider_prefix(name: str, providers: Mapping[str, Any] | None = None) -> str | None:
    """"ollama/" alone (a provider, no model yet): the provider's name, else None."""
    prefix, slash, model = name.partition("/")
    return prefix if slash and not model and (prefix in BUILT_IN or prefix in (providers or {})) else None


def _ollama_url(host: str) -> str:
    """OLLAMA_HOST as Ollama reads it ("0.0.0.0", "127.0.0.1:11434", "http://box:11434") as a /v1 URL."""
    host = host.strip().rstrip("/")
    if "://" not in host:
        host = f"http://{host}"
    parts = urlsplit(host)
    netloc = parts.netloc
    if parts.hostname in ("0.0.0.0", None, ""):  # the address Ollama listens on, not one to connect to
        netloc = netloc.replace("0.0.0.0", "127.0.0.1") if netloc else "127.0.0.1"
    if parts.port is None:
        netloc = f"{netloc}:11434"
    path = parts.path.rstrip("/")
    return f"{parts.scheme}://{netloc}{path if path.endswith('/v1') else path + '/v1'}"


def _positive_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def resolve_provider(name: str, providers: Mapping[str, Any] | None, env: Mapping[str, str]) -> Provider:
    """The provider `name` with its settings (`model.providers.<name>`) and environment applied. The
    environment wins over settings, as GEMINI_MODEL does over model.name. Raises ProviderError."""
    config = dict((providers or {}).get(name) or {})
    if not isinstance(config, dict):
        raise ProviderError(f"model.providers.{name} must be an object")
    key_env = config.get("apiKeyEnv") if isinstance(config.get("apiKeyEnv"), str) else None
    configured = config.get("baseUrl") if isinstance(config.get("baseUrl"), str) else None
    if name == "openai":
        base_url = env.get("OPENAI_BASE_URL") or configured or OPENAI_BASE_URL
        key_env = key_env or "OPENAI_API_KEY"
    elif name == "ollama":
        base_url = _ollama_url(env["OLLAMA_HOST"]) if env.get("OLLAMA_HOST") else configured or OLLAMA_BASE_URL
    elif configured:
        base_url = configured
    else:
        raise ProviderError(f"model.providers.{name} has no baseUrl (the server's OpenAI-compatible /v1 URL)")
    base_url = base_url.strip().rstrip("/")
    if not base_url.startswith(("http://", "https://")):
        raise ProviderError(f"the base URL of provider {name} must be an http(s) URL, not {base_url!r}")
    headers = config.get("headers")
    if not isinstance(headers, dict):
        headers = {}
    return Provider(
        name=name, base_url=base_url, api_key=(env.get(key_env) or None) if key_env else None, key_env=key_env,
        headers={str(k): str(v) for k, v in headers.items()},
        context_window=_positive_int(config.get("contextWindow")),
        tools=config.get("tools") is not False,
        extra_body=dict(config["extraBody"]) if isinstance(config.get("extraBody"), dict) else {})

