"""A realistic Gemini CLI setup (tests/fixtures/gemini_cli_setup): what reaches the model, headless."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from gemini_tui.cli.assemble import build_session
from tests.fakes import warm_start
from tests.fakes.gemini_server import FakeGeminiServer, reply, text
from tests.fakes.mcp_http import serve_mcp
from tests.fixtures import install_gemini_cli_setup


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    with serve_mcp("http") as url:
        yield install_gemini_cli_setup(tmp_path / "setup", url)


def _env(home: Path, server: FakeGeminiServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI_", "GOOGLE_"))}
    return {**env, "GEMINI_CLI_HOME": str(home), "GEMINI_API_KEY": "test-key",
            "GOOGLE_GEMINI_BASE_URL": server.base_url}


def _run(project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*warm_start.command(env, "gemini_tui.cli.main"), *args], cwd=project, env=env,
                          capture_output=True, text=True, timeout=90)


def test_what_reaches_the_model(setup: tuple[Path, Path], gemini_server: FakeGeminiServer) -> None:
    home, project = setup
    gemini_server.script(reply(text("Done.")))
    done = _run(project, _env(home, gemini_server), "-p", "hello")
    assert done.returncode == 0, done.stderr
    request = gemini_server.requests[0]
    assert request.model == "gemini-2.5-flash"  # model.name from the v2 settings
    system = json.dumps(request.body["systemInstruction"])
    for marker in ("USER-RULE", "PROJECT-RULE", "CONVENTIONS: tests first", "NAMING: snake_case",
                   "EXTENSION-CONTEXT"):
        assert marker in system, marker
    assert "NEVER-IMPORTED" not in system  # an @import inside a code fence stays text
    names = set(request.function_names())
    assert {"count_notes", "echo", "add"} <= {n.split("__")[-1] for n in names}  # extension + stdio + http
    assert any(n.startswith("remote__") for n in names), names  # "type": "http" connected over HTTP
    assert "web_fetch" not in names  # the extension's excludeTools
    assert "google_web_search" not in names  # the user's tools.exclude
    assert "not valid" not in done.stderr and "skipped" not in done.stderr, done.stderr


def test_custom_command_headless(setup: tuple[Path, Path], gemini_server: FakeGeminiServer) -> None:
    home, project = setup
    gemini_server.script(reply(text("fix: typo")))
    done = _run(project, _env(home, gemini_server), "-p", "/git:msg fix typo", "--yolo", "-e", "none")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "fix: typo"
    sent = gemini_server.requests[0].contents[0]["parts"]
    prompt = "".join(p.get("text", "") for p in sent)
    # the project's command wins over the user's; {{args}} raw; !{...} ran through the shell tool
    assert prompt.startswith("Write a commit message for: fix typo\nChanges:\nfixed the typo in README")
    assert "user version" not in prompt


def test_shell_injection_is_refused_headless_without_approval(setup: tuple[Path, Path],
                                                              gemini_server: FakeGeminiServer) -> None:
    home, project = setup
    done = _run(project, _env(home, gemini_server), "-p", "/git:msg fix typo", "-e", "none")
    assert done.returncode == 1
    assert "/git:msg was not sent" in done.stderr
    assert not gemini_server.requests  # nothing went to the model


def test_list_extensions(setup: tuple[Path, Path], gemini_server: FakeGeminiServer) -> None:
    home, project = setup
    done = _run(project, _env(home, gemini_server), "-l")
    assert done.returncode == 0, done.stderr
    assert "notes-ext 1.2.0 [user]" in done.stdout
    assert "MCP servers notes" in done.stdout and "commands /notes:add" in done.stdout
    assert "context NOTES.md" in done.stdout and "excludes web_fetch" in done.stdout


async def test_session_from_the_setup(setup: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    home, project = setup
    session = build_session(project, env={}, home=home, model="offline")
    assert set(session.commands) == {"review", "git:msg", "notes:add"}
    assert session.commands["git:msg"].origin == "project"
    assert session.commands["notes:add"].origin == "extension notes-ext"
    assert [e.name for e in session.extensions] == ["notes-ext"]
    assert session.include_dirs == [(project.parent / "shared").resolve()]
    assert not session.settings.mcp_servers["notes"].trust  # an extension cannot trust its own server
    outline = session.refresh_memory().outline()
    assert "./docs/conventions.md" in outline and "naming.md" in outline and "NOTES.md" in outline
    without = build_session(project, env={}, home=home, model="offline", extensions=["none"])
    assert "notes" not in without.settings.mcp_servers and "notes:add" not in without.commands


def test_an_untrusted_folder_loads_no_project_commands_or_extensions(setup: tuple[Path, Path]) -> None:
    home, project = setup
    (home / ".gemini/trustedFolders.json").write_text("{}")
    (project / ".gemini/extensions/local/").mkdir(parents=True)
    (project / ".gemini/extensions/local/gemini-extension.json").write_text('{"name": "local"}')
    session = build_session(project, env={}, home=home, model="offline")
    assert session.commands["git:msg"].origin == "user"  # the project's own is not loaded
    assert [e.name for e in session.extensions] == ["notes-ext"]
    notices = " ".join(n.message for n in session.notices)
    assert "commands of an untrusted folder" in notices and "extensions of an untrusted folder" in notices


def test_at_file_in_headless_prompt(setup: tuple[Path, Path], gemini_server: FakeGeminiServer) -> None:
    home, project = setup
    gemini_server.script(reply(text("It says tests first.")))
    done = _run(project, _env(home, gemini_server), "-p", "summarize @docs/conventions.md", "-e", "none")
    assert done.returncode == 0, done.stderr
    sent = json.dumps(gemini_server.requests[0].contents[-1])
    assert "CONVENTIONS: tests first." in sent and "summarize @docs/conventions.md" in sent


def test_included_directory_headless(setup: tuple[Path, Path], gemini_server: FakeGeminiServer) -> None:
    """A file of `context.includeDirectories` is read by the model's tool call like one in the root."""
    from tests.fakes.gemini_server import call

    home, project = setup
    guide = str((project.parent / "shared/GUIDE.md").resolve())
    gemini_server.script(reply(call("read_file", path=guide)), reply(text("Read it.")))
    done = _run(project, _env(home, gemini_server), "-p", "read the guide", "-e", "none")
    assert done.returncode == 0, done.stderr
    assert "SHARED-GUIDE" in json.dumps(gemini_server.function_responses(1))
    other = project.parent / "elsewhere.md"
    other.write_text("NOT IN THE WORKSPACE")
    gemini_server.script(reply(call("read_file", path=str(other))), reply(text("Refused.")))
    done = _run(project, _env(home, gemini_server), "-p", "read it", "-e", "none",
                "--include-directories", str(project.parent / "shared"))
    assert "NOT IN THE WORKSPACE" not in json.dumps(gemini_server.requests[-1].contents)
