"""Agent files and the catalog: front matter read as Gemini CLI 0.61 validates it, where agents come from
(trust, acknowledgement, precedence, overrides), and which of the session's tools each agent gets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.core.agents.acknowledgements import Acknowledgements
from gemini_tui.core.agents.agent_files import AgentFileError, parse_agent_file
from gemini_tui.core.agents.catalog import load_catalog
from gemini_tui.core.agents.definition import AgentSource
from gemini_tui.core.agents.tool_choice import choose_tools
from gemini_tui.core.tooling.registry import ToolRegistry
from tests.core.agents.world import agent_file

# (front matter lines, body, the problem's words or None when valid)
FILES: list[tuple[str, str, str | None]] = [
    ("name: ok\ndescription: Fine.", "Body.", None),
    ("name: ok\ndescription: Fine.\ntools: [read_file, 'mcp_*', 'mcp_srv_*', '*']\nmax_turns: 3\ntimeout_mins: 2\n"
     "model: gemini-2.5-pro\ntemperature: 0.2\ndisplay_name: OK\nkind: local", "", None),
    ("name: ok\ndescription: Fine.\nmcp_servers:\n  srv:\n    command: x", "", None),
    ("name: Not A Slug\ndescription: x", "", "name"),
    ("name: ok\ndescription: ''", "", "description"),
    ("name: ok", "", "description"),
    ("name: ok\ndescription: x\ncolour: red", "", "unknown key 'colour'"),
    ("name: ok\ndescription: x\ntools: read_file", "", "tools"),
    ("name: ok\ndescription: x\ntools: ['read file']", "", "tools"),
    ("name: ok\ndescription: x\nmax_turns: 0", "", "max_turns"),
    ("name: ok\ndescription: x\ntimeout_mins: 1.5", "", "timeout_mins"),
    ("name: ok\ndescription: x\ntemperature: hot", "", "temperature"),
    ("name: ok\ndescription: x\nkind: remote\nagent_card_url: https://x", "", "remote"),
    ("name: [unclosed", "", "YAML"),
    ("- a\n- b", "", "mapping"),
]


@pytest.mark.parametrize(("front", "body", "problem"), FILES)
def test_agent_files_are_validated_as_gemini_cli_does(tmp_path: Path, front: str, body: str,
                                                      problem: str | None) -> None:
    text = f"---\n{front}\n---\n{body}\n"
    if problem is None:
        agent = parse_agent_file(tmp_path / "ok.md", text, AgentSource.user)
        assert agent.name == "ok" and agent.system_prompt == body and len(agent.hash) == 64
        return
    with pytest.raises(AgentFileError) as error:
        parse_agent_file(tmp_path / "bad.md", text, AgentSource.user)
    assert problem in str(error.value) and str(tmp_path / "bad.md") in str(error.value)


def test_a_file_without_front_matter_is_refused(tmp_path: Path) -> None:
    with pytest.raises(AgentFileError, match="front matter"):
        parse_agent_file(tmp_path / "x.md", "just text\n", AgentSource.user)


def names_of(catalog: Any) -> list[str]:
    return [agent.name for agent in catalog.enabled]


# (trusted, acknowledged, offered?)
PROJECT = [(True, True, True), (True, False, False), (False, True, False), (False, False, False)]


@pytest.mark.parametrize(("trusted", "acknowledged", "offered"), PROJECT)
def test_a_projects_agents_need_trust_and_acknowledgement(tmp_path: Path, trusted: bool, acknowledged: bool,
                                                          offered: bool) -> None:
    gemini, root = tmp_path / "home" / ".gemini", tmp_path / "work"
    path = agent_file(root / ".gemini" / "agents", "local-helper")
    if acknowledged:
        from hashlib import sha256

        Acknowledgements(gemini).acknowledge(root.resolve(), "local-helper", sha256(path.read_bytes()).hexdigest())
    catalog = load_catalog(gemini, root, trusted=trusted)
    assert ("local-helper" in names_of(catalog)) is offered
    assert (catalog.find("local-helper") is not None) is (trusted and True)
    if trusted and not acknowledged:
        assert any("local-helper" in n and "/agents enable" in n for n in catalog.notices)
        catalog.set_enabled("local-helper", True)  # the user's yes: kept with the file's hash
        assert "local-helper" in names_of(load_catalog(gemini, root, trusted=True))
        path.write_text(path.read_text() + "changed\n")  # a changed file asks again
        assert "local-helper" not in names_of(load_catalog(gemini, root, trusted=True))
    if not trusted:
        assert any("untrusted" in n for n in catalog.notices)


def test_precedence_duplicates_overrides_and_extensions(tmp_path: Path) -> None:
    gemini, root, ext = tmp_path / "home" / ".gemini", tmp_path / "work", tmp_path / "ext"
    agent_file(gemini / "agents", "generalist", description="A user's generalist.")
    agent_file(gemini / "agents", "shared", description="The user's.")
    agent_file(gemini / "agents", "quiet")
    agent_file(gemini / "agents", "_draft")  # `_` files are skipped
    agent_file(ext / "agents", "from-ext")
    agent_file(ext / "agents", "shared", description="The extension's.")
    (gemini / "agents" / "broken.md").write_text("---\nname: broken\n---\n")
    overrides = {"quiet": {"enabled": False}, "codebase_investigator": {"runConfig": {"maxTurns": 7},
                                                                         "modelConfig": {"model": "m-x"}}}
    catalog = load_catalog(gemini, root, trusted=True, overrides=overrides, extension_folders=[("e", ext)])
    assert names_of(catalog) == ["codebase_investigator", "generalist", "shared", "from-ext"]
    shared, investigator = catalog.get("shared"), catalog.get("codebase_investigator")
    assert shared is not None and shared.description == "The user's."
    assert investigator is not None and (investigator.max_turns, investigator.model) == (7, "m-x")
    generalist = catalog.get("generalist")
    assert generalist is not None and generalist.source is AgentSource.builtin
    assert sum("Duplicate agent name" in n for n in catalog.notices) == 2
    assert any("broken.md" in n and "description" in n for n in catalog.notices)
    assert catalog.get("quiet") is None and catalog.find("quiet") is not None
    catalog.set_enabled("quiet", True)
    assert "quiet" in names_of(catalog)


def registry_of(*names: str, servers: dict[str, str] | None = None) -> ToolRegistry:
    from tests.core.conftest import ReadNoteTool

    registry = ToolRegistry()
    for name in names:
        tool = ReadNoteTool(Path("/"))
        tool.name = name  # type: ignore[misc]
        if servers and name in servers:
            tool.server_name = servers[name]  # type: ignore[attr-defined]
        registry.register(tool)
    return registry


# (what the agent names, what it gets)
CHOICES: list[tuple[list[str] | None, list[str]]] = [
    (None, ["read_file", "search_file_content", "mcp_a_x", "mcp_b_y"]),
    (["*"], ["read_file", "search_file_content", "mcp_a_x", "mcp_b_y"]),
    (["read_file"], ["read_file"]),
    (["grep_search"], ["search_file_content"]),
    (["mcp_*"], ["mcp_a_x", "mcp_b_y"]),
    (["mcp_a_*"], ["mcp_a_x"]),
    (["write_file", "run_shell_command"], []),  # the session lacks them: never more than it has
]


@pytest.mark.parametrize(("wanted", "chosen"), CHOICES)
def test_tool_names_and_wildcards(wanted: list[str] | None, chosen: list[str]) -> None:
    registry = registry_of("read_file", "search_file_content", "mcp_a_x", "mcp_b_y", "invoke_agent",
                           servers={"mcp_a_x": "a", "mcp_b_y": "b"})
    assert [tool.name for tool in choose_tools(wanted, registry)] == chosen


def test_agents_overrides_is_a_setting(tmp_path: Path) -> None:
    from gemini_tui.core.setup.config import load_settings

    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(
        {"agents": {"overrides": {"generalist": {"enabled": False}}, "maxParallel": 2}}))
    settings = load_settings(tmp_path, home=home)
    assert settings.agents_overrides == {"generalist": {"enabled": False}} and settings.agents_max_parallel == 2
    assert not settings.notices
