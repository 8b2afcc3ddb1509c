"""Settings: both files, old and new spellings, comments, env expansion, and bad content as notices."""

from __future__ import annotations

import json
from pathlib import Path

from gemini_tui.core.ground.jsonc import strip_json_comments
from gemini_tui.core.setup.config import DEFAULT_MAX_SESSION_TURNS, expand_env, gemini_home, load_settings

# These tests read the workspace file as a whole: its folder is trusted (tests/core/test_trust.py covers trust)
TRUSTED = {"GEMINI_CLI_TRUST_WORKSPACE": "true"}


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_no_files_gives_defaults(root: Path, home: Path) -> None:
    settings = load_settings(root, home=home, env=TRUSTED)
    assert settings.model_name is None and settings.tools_core is None
    assert settings.context_file_names == ["GEMINI.md"]
    assert settings.max_session_turns == DEFAULT_MAX_SESSION_TURNS
    assert settings.notices == [] and settings.files == []
    assert settings.gemini_dir == home / ".gemini"


def test_home_comes_from_gemini_cli_home(tmp_path: Path) -> None:
    assert gemini_home({"GEMINI_CLI_HOME": str(tmp_path)}) == tmp_path


def test_nested_keys_workspace_wins_and_servers_merge(root: Path, home: Path) -> None:
    write(home / ".gemini/settings.json", json.dumps({
        "model": {"name": "gemini-2.5-flash"},
        "tools": {"core": ["read_file"], "allowed": ["run_shell_command(git status)"]},
        "mcpServers": {"time": {"command": "mcp-server-time"}},
        "context": {"fileName": ["AGENTS.md", "GEMINI.md"]},
    }))
    write(root / ".gemini/settings.json", json.dumps({
        "tools": {"core": ["glob"], "exclude": ["write_file"], "discoveryCommand": "bin/discover",
                  "callCommand": "bin/call"},
        "mcpServers": {"web": {"httpUrl": "http://127.0.0.1:1/mcp", "headers": {"A": "b"}, "timeout": 5000,
                               "trust": True, "includeTools": ["x"], "excludeTools": ["y"]}},
    }))
    settings = load_settings(root, home=home, env=TRUSTED)
    assert settings.notices == []
    assert settings.model_name == "gemini-2.5-flash"
    assert settings.tools_core == ["glob"]
    assert settings.tools_exclude == ["write_file"]
    assert settings.tools_allowed == ["run_shell_command(git status)"]
    assert settings.discovery_command == "bin/discover" and settings.call_command == "bin/call"
    assert settings.context_file_names == ["AGENTS.md", "GEMINI.md"]
    assert set(settings.mcp_servers) == {"time", "web"}
    web = settings.mcp_servers["web"]
    assert web.http_url == "http://127.0.0.1:1/mcp" and web.trust and web.timeout == 5000
    assert web.include_tools == ["x"] and web.exclude_tools == ["y"]


def test_flat_spellings(root: Path, home: Path) -> None:
    write(root / ".gemini/settings.json", json.dumps({
        "toolDiscoveryCommand": "d", "toolCallCommand": "c", "coreTools": ["a"], "excludeTools": ["b"],
        "allowedTools": ["c"], "contextFileName": "CONTEXT.md", "model": "gemini-2.0-flash",
    }))
    settings = load_settings(root, home=home, env=TRUSTED)
    assert settings.notices == []
    assert (settings.discovery_command, settings.call_command) == ("d", "c")
    assert (settings.tools_core, settings.tools_exclude, settings.tools_allowed) == (["a"], ["b"], ["c"])
    assert settings.context_file_names == ["CONTEXT.md"]
    assert settings.model_name == "gemini-2.0-flash"


def test_comments_trailing_commas_and_env(root: Path, home: Path) -> None:
    write(root / ".gemini/settings.json", """{
      // the model
      "model": {"name": "${MODEL}", /* inline */ },
      "mcpServers": {"s": {"command": "run", "args": ["--url=http://x//y"], "env": {"TOKEN": "$TOKEN"}}},
    }""")
    settings = load_settings(root, home=home, env={**TRUSTED, "MODEL": "gemini-x", "TOKEN": "secret"})
    assert settings.notices == []
    assert settings.model_name == "gemini-x"
    assert settings.mcp_servers["s"].args == ["--url=http://x//y"]  # `//` inside a string is not a comment
    assert settings.mcp_servers["s"].env == {"TOKEN": "secret"}


def test_comments_keep_positions_and_unset_variables_stay() -> None:
    assert strip_json_comments('{"a": "b"} // c') == '{"a": "b"}     '
    assert expand_env({"x": ["$NOPE", "${HOME_X}/a"]}, {"HOME_X": "/h"}) == {"x": ["$NOPE", "/h/a"]}


def test_bad_content_becomes_notices_with_file_and_key(root: Path, home: Path) -> None:
    user = write(home / ".gemini/settings.json", "{ not json")
    workspace = write(root / ".gemini/settings.json", json.dumps({
        "tools": {"core": "read_file", "allowed": ["x"], "fancy": 1},
        "mcpServers": {"bad": {"args": ["x"]}, "worse": {"command": 5}, "good": {"command": "ok"}},
        "ui": {"theme": "dark"},
        "model": {"maxSessionTurns": -1},
    }))
    settings = load_settings(root, home=home, env=TRUSTED)
    text = "\n".join(settings.notices)
    assert f"{user}: not valid JSON (line 1" in text
    assert f"{workspace}: tools.core must be a list of strings" in text
    assert "mcpServers.bad needs command, url or httpUrl" in text
    assert "mcpServers.worse is not valid" in text
    assert "model.maxSessionTurns must be a positive whole number" in text
    # Gemini CLI's usual `ui` (general, privacy, telemetry) sections are no notice: every user has them
    assert "ignored settings gemini-tui does not use: tools.fancy." in text
    assert settings.ui_theme == "dark"  # read now: the app checks the name against its themes
    assert settings.tools_allowed == ["x"] and settings.tools_core is None
    assert list(settings.mcp_servers) == ["good"]


def test_settings_that_are_not_an_object(root: Path, home: Path) -> None:
    write(root / ".gemini/settings.json", "[1, 2]")
    settings = load_settings(root, home=home, env=TRUSTED)
    assert "must hold a JSON object" in settings.notices[0]


def test_tools_exclude_adds_up_across_files(root: Path, home: Path) -> None:
    # as Gemini CLI (tools.exclude merges by union): a project's settings cannot lift the user's deny rules
    write(home / ".gemini/settings.json", json.dumps({"tools": {"exclude": ["run_shell_command(rm)", "web_fetch"]}}))
    write(root / ".gemini/settings.json", json.dumps({"excludeTools": ["web_fetch", "write_file"]}))
    settings = load_settings(root, home=home, env=TRUSTED)
    assert settings.tools_exclude == ["run_shell_command(rm)", "web_fetch", "write_file"]
    write(root / ".gemini/settings.json", json.dumps({"tools": {"exclude": []}}))
    assert load_settings(root, home=home, env=TRUSTED).tools_exclude == ["run_shell_command(rm)", "web_fetch"]
