"""`gemini-tui mcp add|list|remove` writes what `gemini mcp add` writes (its tests are the record)."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from gemini_tui.cli.mcp_command import main
from gemini_tui.core.setup.config import load_settings
from tests.fakes import warm_start


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir(parents=True)
    home.mkdir()
    monkeypatch.setenv("GEMINI_CLI_HOME", str(home))
    monkeypatch.chdir(project)
    return home, project


CASES = [
    ("add -e FOO=bar my-server /path/to/server arg1 arg2", "project",
     {"my-server": {"command": "/path/to/server", "args": ["arg1", "arg2"], "env": {"FOO": "bar"}}}),
    ("add -e FOO=bar -e BAZ=qux my-server /path/to/server", "project",
     {"my-server": {"command": "/path/to/server", "args": [], "env": {"FOO": "bar", "BAZ": "qux"}}}),
    ('add --transport sse --scope user -H "X-API-Key: your-key" sse-server https://example.com/sse-endpoint', "user",
     {"sse-server": {"url": "https://example.com/sse-endpoint", "type": "sse", "headers": {"X-API-Key": "your-key"}}}),
    ('add --transport http -H "Authorization: Bearer your-token" http-server https://example.com/mcp', "project",
     {"http-server": {"url": "https://example.com/mcp", "type": "http",
                      "headers": {"Authorization": "Bearer your-token"}}}),
    ('add --type http http-server https://example.com/mcp', "project",
     {"http-server": {"url": "https://example.com/mcp", "type": "http"}}),
    ("add my-server npx -- -y http://example.com/some-package", "project",
     {"my-server": {"command": "npx", "args": ["-y", "http://example.com/some-package"]}}),
    ("add test-server npx -y http://example.com/some-package", "project",
     {"test-server": {"command": "npx", "args": ["-y", "http://example.com/some-package"]}}),
    ("add --timeout 5000 --trust --include-tools a,b t python s.py", "project",
     {"t": {"command": "python", "args": ["s.py"], "timeout": 5000, "trust": True, "includeTools": ["a", "b"]}}),
]


@pytest.mark.parametrize(("line", "scope", "expected"), CASES)
def test_add_writes_what_gemini_writes(places: tuple[Path, Path], line: str, scope: str,
                                       expected: dict[str, object]) -> None:
    home, project = places
    assert main(shlex.split(line)) == 0
    path = (home if scope == "user" else project) / ".gemini/settings.json"
    assert json.loads(path.read_text())["mcpServers"] == expected
    # and gemini-tui reads it back as a server it can start
    (alias, entry), = expected.items()
    config = load_settings(project).mcp_servers[alias]
    assert (config.type or "stdio") == entry.get("type", "stdio")


def test_add_keeps_other_settings_and_remove(places: tuple[Path, Path]) -> None:
    _, project = places
    (project / ".gemini").mkdir()
    settings = project / ".gemini/settings.json"
    settings.write_text(json.dumps({"model": {"name": "x"}, "mcpServers": {"old": {"command": "a"}}}))
    assert main(["add", "new", "b"]) == 0
    data = json.loads(settings.read_text())
    assert data["model"] == {"name": "x"} and set(data["mcpServers"]) == {"old", "new"}
    assert main(["remove", "old"]) == 0
    assert set(json.loads(settings.read_text())["mcpServers"]) == {"new"}
    assert main(["remove", "old"]) == 1


def test_a_file_with_comments_is_not_rewritten(places: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _, project = places
    (project / ".gemini").mkdir()
    settings = project / ".gemini/settings.json"
    original = '{\n  // my servers\n  "mcpServers": {}\n}\n'
    settings.write_text(original)
    assert main(["add", "x", "y"]) == 1
    assert settings.read_text() == original
    assert "comments" in capsys.readouterr().err


def test_list_through_the_cli(places: tuple[Path, Path]) -> None:
    home, project = places
    fake = Path(__file__).resolve().parents[1] / "fakes" / "mcp_server.py"
    command = warm_start.server_command(fake)
    assert main(["add", "good", command[0], "--", *command[1:]]) == 0
    assert main(["add", "--transport", "http", "bad", "http://127.0.0.1:9/mcp"]) == 0
    env = {**__import__("os").environ, "GEMINI_CLI_HOME": str(home)}
    done = subprocess.run([*warm_start.command(env, "gemini_tui.cli.main"), "mcp", "list"], cwd=project,
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert f"✓ good: {' '.join(command)} (stdio) - Connected" in done.stdout
    assert "✗ bad: http://127.0.0.1:9/mcp (http) - Disconnected" in done.stdout
