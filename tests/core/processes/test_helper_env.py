"""Helper processes (MCP stdio servers, discovery and call commands) see no credential from the environment
unless their settings entry names it: checked with real processes that report what they received."""

from __future__ import annotations

import json
import os
import random
import string
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.mcp import McpManager
from gemini_tui.core.processes.child_env import SAFE_NAMES, helper_environment, looks_like_credential
from gemini_tui.core.tooling.discovered_tool import discover_tools
from gemini_tui.core.tooling.registry import ToolRegistry

PROBE = str(Path(__file__).resolve().parents[2] / "fakes" / "env_probe.py")
SECRETS = {
    "GEMINI_API_KEY": "gemini-secret", "GOOGLE_API_KEY": "google-secret", "SECRET_TOKEN": "token-secret",
    "MY_SERVICE_PASSWORD": "pw-secret", "AWS_SECRET_ACCESS_KEY": "aws-secret", "GITHUB_TOKEN": "gh-secret",
    "DB_CREDENTIALS": "cred-secret", "OPENAI_API_KEY": "openai-secret", "GOOGLE_APPLICATION_CREDENTIALS": "/k.json",
    "NPM_AUTH": "npm-secret", "UNRELATED_SETTING": "plain-but-not-needed",
}


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LC_TIME", "C")
    yield SECRETS


def assert_clean(seen: dict[str, str], allowed: dict[str, str] | None = None) -> None:
    allowed = allowed or {}
    for name, value in SECRETS.items():
        if name in allowed:
            continue
        assert name not in seen, f"{name} reached the helper"
        assert value not in seen.values(), f"the value of {name} reached the helper"
    for name, value in allowed.items():
        assert seen.get(name) == value
    assert seen.get("PATH") == os.environ["PATH"]
    assert seen.get("HOME") == os.environ["HOME"]
    assert seen.get("LC_TIME") == "C"


async def test_stdio_mcp_server_sees_no_secret_unless_its_entry_names_it(secret_env: dict[str, str],
                                                                        tmp_path: Path) -> None:
    servers = {"probe": {"command": sys.executable, "args": [PROBE, "mcp"],
                         "env": {"SECRET_TOKEN": "given-on-purpose", "PROBE_MODE": "x"}, "trust": True}}
    manager = McpManager(servers, ToolRegistry(), None, root=tmp_path, log_dir=tmp_path / "logs")
    try:
        assert await manager.wait_ready(30)
        tool = manager.registry.get("get_env")
        assert tool is not None, [t.name for t in manager.registry.tools]
        result = await tool.execute(tool.validate_params({}), AbortSignal())  # type: ignore[arg-type]
        text = result.llm_content if isinstance(result.llm_content, str) else "".join(
            getattr(part, "text", "") for part in result.llm_content)
        seen = json.loads(text[text.index("{"):text.rindex("}") + 1])
    finally:
        await manager.close()
    assert_clean(seen, {"SECRET_TOKEN": "given-on-purpose", "PROBE_MODE": "x"})


def test_discovery_and_call_commands_see_no_secret(secret_env: dict[str, str], tmp_path: Path) -> None:
    found = discover_tools(f"{sys.executable} {PROBE} discover", f"{sys.executable} {PROBE} call", cwd=str(tmp_path))
    assert not found.errors, found.errors
    (tool,) = found.tools
    seen_at_discovery = json.loads(tool.description.split("\n\n")[0])
    assert_clean(seen_at_discovery)


async def test_call_command_sees_no_secret(secret_env: dict[str, str], tmp_path: Path) -> None:
    found = discover_tools(f"{sys.executable} {PROBE} discover", f"{sys.executable} {PROBE} call", cwd=str(tmp_path))
    (tool,) = found.tools
    result = await tool.execute(tool.validate_params({}), AbortSignal())  # type: ignore[arg-type]
    assert result.error is None, result.llm_content
    assert isinstance(result.llm_content, str)
    assert_clean(json.loads(result.llm_content))


CREDENTIAL_SHAPES = ["{}_API_KEY", "{}_TOKEN", "{}SECRET", "{}_PASSWORD", "X_{}_CREDENTIAL", "GEMINI_{}",
                     "GOOGLE_{}", "{}_AUTH_HEADER", "{}_PRIVATE_KEY", "{}_access_token"]


def test_generated_credential_names_never_pass() -> None:
    rng = random.Random(10)
    base = {name: "v" for name in SAFE_NAMES} | {"LC_ALL": "C"}
    for _ in range(500):
        word = "".join(rng.choice(string.ascii_uppercase) for _ in range(rng.randint(1, 8)))
        name = rng.choice(CREDENTIAL_SHAPES).format(word)
        assert looks_like_credential(name), name
        env = helper_environment(base=base | {name: "secret"})
        assert name not in env
        assert helper_environment({name: "named"}, base=base | {name: "secret"})[name] == "named"
    # the safe list passes whole, and nothing else from the environment does
    assert helper_environment(base=base | {"RANDOM_THING": "1"}) == base
