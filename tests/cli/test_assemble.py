"""The wiring: model choice, every built-in registered, settings filters, notices."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gemini_tui.cli.assemble import ConfigurationError, build_model, build_session, choose_model_name
from gemini_tui.core.models.gemini import GeminiModel
from gemini_tui.core.models.offline import OfflineModel
from gemini_tui.core.session.scheduler import ApprovalMode
from gemini_tui.core.setup.config import Settings

BUILTINS = {"list_directory", "read_file", "write_file", "glob", "search_file_content", "replace",
            "read_many_files", "run_shell_command", "web_fetch", "google_web_search", "save_memory",
            "enter_plan_mode", "exit_plan_mode", "ask_user", "write_todos", "invoke_agent"}


def test_model_name_precedence(tmp_path: Path) -> None:
    settings = Settings(model_name="from-settings", home=tmp_path)
    assert choose_model_name("flag", settings, {"GEMINI_MODEL": "env"}) == "flag"
    assert choose_model_name(None, settings, {"GEMINI_MODEL": "env"}) == "env"
    assert choose_model_name(None, settings, {}) == "from-settings"
    assert choose_model_name(None, Settings(home=tmp_path), {}) == "gemini-2.5-pro"


def test_model_choice(root: Path) -> None:
    model, notice = build_model("gemini-2.5-pro", root, {})
    assert isinstance(model, OfflineModel) and "No GEMINI_API_KEY" in (notice or "")
    model, notice = build_model("gemini-2.5-flash", root, {"GOOGLE_API_KEY": "k",
                                                           "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:1"})
    assert isinstance(model, GeminiModel) and notice is None
    assert (model.model_name, model.api_key, model.base_url) == ("gemini-2.5-flash", "k", "http://127.0.0.1:1")
    model, notice = build_model("offline", root, {"GEMINI_API_KEY": "k"})
    assert isinstance(model, OfflineModel) and "offline demo model" in (notice or "")
    with pytest.raises(ConfigurationError):
        build_model("gemini-2.5-pro", root, {"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": "localhost:1"})


def test_every_builtin_is_registered(root: Path, home: Path) -> None:
    session = build_session(root, env={}, home=home, approval_mode="auto_edit")
    assert {tool.name for tool in session.registry.tools} == BUILTINS
    assert session.approval_mode is ApprovalMode.auto_edit
    assert session.is_offline and session.model_name == "offline"
    assert session.notices[0].message.startswith("No GEMINI_API_KEY")


def test_settings_filter_tools_and_report_problems(root: Path, home: Path) -> None:
    (root / ".gemini").mkdir()
    (root / ".gemini/settings.json").write_text(json.dumps({
        "tools": {"core": ["read_file", "ReadFolder", "run_shell_command(git)"], "exclude": ["ReadFolder"]},
        "colour": "blue"}))
    session = build_session(root, env={"GEMINI_API_KEY": "k"}, home=home)
    assert {tool.name for tool in session.registry.tools} == {"read_file", "run_shell_command"}
    assert any("colour" in n.message for n in session.notices)
    assert not session.is_offline


def test_root_must_be_a_directory(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError):
        build_session(tmp_path / "missing", env={}, home=tmp_path)


def _discovery_settings(home: Path, mode: str) -> Settings:
    import shlex
    import sys

    script = shlex.join([sys.executable, str(Path(__file__).resolve().parents[1] / "fakes" / "discovery_tool.py")])
    return Settings(home=home, discovery_command=f"{script} discover {mode}", call_command=f"{script} call")


async def test_a_slow_discovery_command_does_not_hold_up_the_session(root: Path, tmp_path: Path) -> None:
    import time

    from gemini_tui.core.ground.events import Notice

    started = time.monotonic()
    session = build_session(root, model="offline", settings=_discovery_settings(tmp_path, "slow"), env={})
    assert time.monotonic() - started < 1.5  # the command takes 2 s
    assert "add" not in session.registry
    events = session.bus.subscribe()
    await session.start(wait_s=20)
    assert "add" in session.registry and "shout" in session.registry
    await session.close()
    await events.aclose()  # type: ignore[attr-defined]
    assert not [n for n in session.notices if isinstance(n, Notice) and "discovery" in n.message.lower()]


async def test_discovery_problems_arrive_as_notices(root: Path, tmp_path: Path) -> None:
    session = build_session(root, model="offline", settings=_discovery_settings(tmp_path, "fail"), env={})
    seen = []
    events = session.bus.subscribe()
    await session.start(wait_s=20)
    await session.close()
    session.bus.close()
    async for event in events:
        seen.append(event)
    assert any("Tool discovery failed (exit code 3)" in n.message for n in session.notices)
    assert any("Tool discovery failed (exit code 3)" in getattr(e, "message", "") for e in seen)


async def test_a_saved_memory_lands_in_the_context_file_the_settings_name(root: Path, tmp_path: Path) -> None:
    # context.fileName = AGENTS.md: a fact written to GEMINI.md would never reach the model again
    from gemini_tui.core.ground.abort import AbortSignal

    settings = Settings(home=tmp_path, context_file_names=["AGENTS.md", "GEMINI.md"])
    session = build_session(root, model="offline", settings=settings, env={})
    tool = session.registry.get("save_memory")
    assert tool is not None
    params = tool.validate_params({"fact": "the build uses make"})
    assert (await tool.execute(params, AbortSignal())).ok
    assert (tmp_path / ".gemini" / "AGENTS.md").is_file()
    assert "- the build uses make" in session.system_instruction()


async def test_a_discovered_tool_that_clashes_with_a_registered_name_is_reported(root: Path, tmp_path: Path) -> None:
    from gemini_tui.core.tooling.discovered_tool import DiscoveredTool

    session = build_session(root, model="offline", settings=_discovery_settings(tmp_path, "ok"), env={})
    first = DiscoveredTool({"name": "add", "description": "registered first"}, "true")
    assert session.registry.register(first)
    await session.start(wait_s=20)
    await session.close()
    assert session.registry.get("add") is first and "shout" in session.registry
    assert any("add" in n.message and "already" in n.message for n in session.notices)
