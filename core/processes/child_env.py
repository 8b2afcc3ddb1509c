"""The environment a helper process starts with: MCP stdio servers, discovery and call commands.

A helper gets what a program needs to run (PATH, HOME, locale, terminal, temp dir, user, shell, time zone) and
what its own settings entry names, never the rest of the user's environment: API keys, tokens and passwords are
in there, and a server has no business reading them. A name that looks like a credential is kept out even when
it is on the safe list; only the settings entry (`mcpServers.<name>.env`) can pass one, by naming it."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

SAFE_NAMES = frozenset({
    "PATH", "HOME", "LANG", "LANGUAGE", "TERM", "COLORTERM", "TMPDIR", "TEMP", "TMP", "USER", "LOGNAME", "SHELL",
    "TZ", "PWD", "HOSTNAME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
    "SYSTEMROOT", "COMSPEC", "PATHEXT", "WINDIR",  # what a program needs to start on Windows
})
SAFE_PREFIXES = ("LC_",)
# Any of these in a name marks it as a credential, wherever it sits (`MY_API_KEY`, `GITHUB_TOKEN`, `PGPASSWORD`)
CREDENTIAL_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE", "SESSION",
                    "PRIVATE", "CERT", "PASS")
# Whole families that hold keys or identify accounts
CREDENTIAL_PREFIXES = ("GEMINI_", "GOOGLE_", "GCLOUD_", "CLOUDSDK_", "AWS_", "AZURE_", "OPENAI_", "ANTHROPIC_",
                       "GITHUB_", "GH_", "GITLAB_", "NPM_", "DOCKER_", "HF_", "SSH_")
_CREDENTIAL = re.compile("|".join(CREDENTIAL_WORDS))


def looks_like_credential(name: str) -> bool:
    upper = name.upper()
    return bool(_CREDENTIAL.search(upper)) or upper.startswith(CREDENTIAL_PREFIXES)


def helper_environment(named: Mapping[str, str] | None = None, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The minimal environment from `base` (default: this process's), plus every variable `named` gives
    (the settings entry's own `env`, which may name a credential on purpose)."""
    base = os.environ if base is None else base
    env = {name: value for name, value in base.items()
           if (name in SAFE_NAMES or name.startswith(SAFE_PREFIXES)) and not looks_like_credential(name)}
    env.update(named or {})
    return env
