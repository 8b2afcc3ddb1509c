"""`/agents`: the list, show, enable and disable (saved as agents.overrides in settings.json and followed by the
next request), a project agent accepted by enabling it, reload, and every mistake refused with nothing written."""

from __future__ import annotations

import json
import random
from pathlib import Path

from gemini_tui.app.agent_commands import catalog_of, switch
from gemini_tui.app.command_registry import ShowNotice
from gemini_tui.core.agents.catalog import load_catalog
from gemini_tui.core.setup.config import load_settings
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.app.test_permissions import chat_text
from tests.fakes.scripted_model import ScriptedModel, scripted_session, text

AGENT = "---\nname: {name}\ndescription: {description}\ntools: [read_file]\n---\nYou read files for {name}.\n"


def write_agent(folder: Path, name: str, description: str = "Reads files.") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(AGENT.format(name=name, description=description))
    return path


def offered(model: ScriptedModel) -> str:
    return model.requests[-1].system_instruction or ""


async def test_list_disable_enable_and_accept_in_the_app(root: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_agent(home / ".gemini" / "agents", "doc-reader", "Reads the docs.")
    write_agent(root / ".gemini" / "agents", "proj-helper", "Helps in this project.")
    model = ScriptedModel().add(text("one")).add(text("two"))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "/agents")
        await wait_for(pilot, lambda: "generalist" in chat_text(screen))
        shown = chat_text(screen)
        assert "codebase_investigator" in shown and "doc-reader" in shown
        assert "waiting for your review" in shown and "proj-helper" in shown
        await type_and_send(pilot, "/agents disable generalist")
        await wait_for(pilot, lambda: "Agent 'generalist' disabled" in chat_text(screen))
        saved = json.loads((home / ".gemini" / "settings.json").read_text())
        assert saved["agents"]["overrides"]["generalist"]["enabled"] is False
        await type_and_send(pilot, "/agents enable proj-helper")
        await wait_for(pilot, lambda: "Agent 'proj-helper' accepted" in chat_text(screen))
        await type_and_send(pilot, "hello")
        await wait_for(pilot, lambda: len(model.requests) == 1 and not screen.busy)
        instruction = offered(model)
        assert "proj-helper" in instruction and "doc-reader" in instruction and "generalist" not in instruction
        await type_and_send(pilot, "/agents show proj-helper")
        await wait_for(pilot, lambda: "Helps in this project." in chat_text(screen))
        assert "tools: read_file" in chat_text(screen)
    acks = json.loads((home / ".gemini" / "acknowledgments" / "agents.json").read_text())
    assert "proj-helper" in json.dumps(acks)
    # a new start keeps both answers: generalist off, proj-helper accepted
    again = ScriptedModel().add(text("three"))
    session = scripted_session(root, again, home)
    await session.send("again")
    assert "proj-helper" in offered(again) and "generalist" not in offered(again)


async def test_mistakes_are_refused_and_write_nothing(root: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    commented = '{\n  // mine\n  "ui": {}\n}\n'
    (home / ".gemini" / "settings.json").write_text(commented)
    session = scripted_session(root, ScriptedModel(), home)
    catalog = catalog_of(session)
    assert catalog is not None
    for name, on, said in [("", True, "Usage"), ("nobody", False, "not found"), ("generalist", True, "already"),
                           ("generalist", False, "comments")]:
        result = switch(session, catalog, name, on)
        assert isinstance(result, ShowNotice) and said in result.text, (name, result)
    assert (home / ".gemini" / "settings.json").read_text() == commented
    assert catalog.get("generalist") is not None  # a refused disable leaves it offered


async def test_reload_finds_new_changed_and_gone_files(root: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = home / ".gemini" / "agents"
    gone = write_agent(folder, "old-one")
    write_agent(folder, "changing")
    session = scripted_session(root, ScriptedModel(), home)
    catalog = catalog_of(session)
    assert catalog is not None
    switch(session, catalog, "changing", False)
    gone.unlink()
    write_agent(folder, "changing", "Now it does more.")
    write_agent(folder, "new-one")
    found = catalog.reload()
    assert (found.new, found.updated, found.deleted) == (["new-one"], ["changing"], ["old-one"])
    assert catalog.get("changing") is None and catalog.find("changing") is not None  # still off after reload
    assert catalog.get("new-one") is not None


async def test_generated_switches_are_what_a_new_start_loads(root: Path, tmp_path: Path) -> None:
    """Random enables and disables, some with a workspace settings file: after each, the session's offer and what
    a fresh load of the settings and files gives are the same."""
    rng = random.Random(34)
    home = tmp_path / "home"
    for name in ("alpha", "beta", "gamma"):
        write_agent(home / ".gemini" / "agents", name)
    (root / ".gemini").mkdir(exist_ok=True)
    (root / ".gemini" / "settings.json").write_text("{}\n")
    session = scripted_session(root, ScriptedModel(), home)
    catalog = catalog_of(session)
    assert catalog is not None
    names = ["alpha", "beta", "gamma", "generalist", "codebase_investigator"]
    for _ in range(40):
        switch(session, catalog, rng.choice(names), rng.random() < 0.5)
        fresh = load_catalog(session.settings.gemini_dir, root, trusted=True,
                             overrides=load_settings(root, home=home).agents_overrides)
        assert [a.name for a in fresh.enabled] == [a.name for a in catalog.enabled]
