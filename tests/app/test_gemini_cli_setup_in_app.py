"""The realistic Gemini CLI setup in the app (Pilot), against the fake Gemini server through google-genai:
custom commands (completion, help, palette, expansion with an approved !{...}), /auth, /model, /extensions,
/directory."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownTable

from gemini_tui.app.main import GeminiApp
from gemini_tui.app.screens.help import HelpScreen
from gemini_tui.app.screens.main_screen import MainScreen
from gemini_tui.app.widgets.answer import MarkdownText
from gemini_tui.app.widgets.confirm_bar import ConfirmBar
from gemini_tui.cli.assemble import build_session
from tests.app.app_driver import main_screen, type_and_send, wait_for
from tests.app.test_confirmations import GRACE
from tests.fakes import warm_start
from tests.fakes.gemini_server import FakeGeminiServer, reply, text
from tests.fixtures import install_gemini_cli_setup


@pytest.fixture
def app(tmp_path: Path, gemini_server: FakeGeminiServer) -> Iterator[GeminiApp]:
    home, project = install_gemini_cli_setup(tmp_path / "setup")
    settings = project / ".gemini/settings.json"
    settings.write_text(json.dumps({"context": {"includeDirectories": ["../shared"]}}))  # no MCP: a fast start
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("GEMINI_", "GOOGLE_"))},
           "GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": gemini_server.base_url}
    session = build_session(project, env=env, home=home, extensions=["none"])
    yield GeminiApp(session, project)


def outputs(screen: MainScreen) -> list[str]:
    return [m.source for m in screen.chat.query(MarkdownText).filter(".command-output")]


async def _command(pilot: Pilot[Any], line: str) -> str:
    screen = main_screen(pilot)
    before = len(outputs(screen))
    await type_and_send(pilot, line)
    await wait_for(pilot, lambda: len(outputs(screen)) > before)
    return outputs(screen)[-1]


async def test_custom_command_expanded_and_sent(app: GeminiApp, gemini_server: FakeGeminiServer) -> None:
    gemini_server.script(reply(text("fix: typo in README")))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: screen.ready)
        assert "git:msg" in screen.prompt.commands and "review" in screen.prompt.commands  # completion
        screen.prompt.input.focus()
        await pilot.press(*"/git:m")
        await pilot.pause(0.1)
        await pilot.press("tab")
        assert screen.prompt.input.text.startswith("/git:msg")
        screen.prompt.input.load_text("/git:msg fix typo")
        await pilot.press("enter")
        bar = screen.query_one(ConfirmBar)
        await wait_for(pilot, lambda: bar.request is not None)  # the !{cat CHANGES.txt} asks first
        assert "cat CHANGES.txt" in str(bar.body.render())
        await pilot.pause(GRACE)
        await pilot.press("y")
        await wait_for(pilot, lambda: gemini_server.requests and not screen.busy)
    sent = "".join(p.get("text", "") for p in gemini_server.requests[0].contents[-1]["parts"])
    assert sent == "Write a commit message for: fix typo\nChanges:\nfixed the typo in README"
    system = json.dumps(gemini_server.requests[0].body["systemInstruction"])
    assert "CONVENTIONS: tests first" in system and "NAMING: snake_case" in system  # imports resolved


async def test_help_and_palette_list_custom_commands(app: GeminiApp) -> None:
    from textual.command import CommandPalette

    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: screen.ready)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        help_text = app.screen.query_one("#help-text", Markdown)
        await wait_for(pilot, lambda: len(help_text.query(MarkdownTable)) >= 4)
        drawn = [cell.plain for table in help_text.query(MarkdownTable)
                 for row in table._get_headers_and_rows()[1] for cell in row]  # what F1 draws, not its source
        assert "/git:msg" in drawn and "Write a commit message (project)" in drawn
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"/review")
        await pilot.pause(0.3)
        await pilot.press("escape")


async def test_auth_model_extensions_directory(app: GeminiApp, gemini_server: FakeGeminiServer,
                                               tmp_path: Path) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: screen.ready)
        shown = await _command(pilot, "/auth")
        assert "Gemini API key" in shown and "security.auth.selectedType" in shown and "test-key" not in shown
        shown = await _command(pilot, "/extensions")
        assert "No extensions are active" in shown  # -e none
        shown = await _command(pilot, "/directory show")
        assert str((tmp_path / "setup/shared").resolve()) in shown
        extra = tmp_path / "extra"
        extra.mkdir()
        (extra / "x.md").write_text("EXTRA FILE")
        await type_and_send(pilot, f"/directory add {extra}")
        await wait_for(pilot, lambda: extra.resolve() in screen.session.include_dirs)
        await type_and_send(pilot, "/model gemini-2.5-pro")
        await wait_for(pilot, lambda: screen.session.model_name == "gemini-2.5-pro")
        assert screen.status.model_name == "gemini-2.5-pro"
        gemini_server.script(reply(text("Seen.")))
        await type_and_send(pilot, f"read @{extra / 'x.md'}")
        await wait_for(pilot, lambda: gemini_server.requests and not screen.busy)
    request = gemini_server.requests[-1]
    assert request.model == "gemini-2.5-pro"  # /model took effect for the next request
    assert "EXTRA FILE" in json.dumps(request.contents[-1])  # @path in the added directory


async def test_mcp_prompt_and_resource_in_the_app(root: Path, tmp_path: Path) -> None:
    """A server's prompt completes as a command and runs; its resource completes after `@` and is read."""
    from tests.app.app_driver import make_app
    from tests.fakes.scripted_model import ScriptedModel
    from tests.fakes.scripted_model import text as scripted_text

    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    server = Path(__file__).resolve().parents[1] / "fakes" / "mcp_everything.py"
    (home / ".gemini/settings.json").write_text(json.dumps({"mcpServers": {"ev": {
        **warm_start.server_entry(server), "trust": True}}}))
    model = ScriptedModel(record=True).add(scripted_text("ok")).add(scripted_text("ok"))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: "ev:review" in screen.prompt.commands, timeout=20)
        screen.prompt.input.focus()
        await pilot.press(*"read @ev:no")
        await pilot.pause(0.1)
        await pilot.press("tab")
        assert screen.prompt.input.text == "read @ev:notes://today "
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(model.requests) == 1 and not screen.busy)
        assert "RESOURCE-TEXT" in "".join(getattr(p, "text", "") for p in model.requests[0].contents[-1].parts)
        await type_and_send(pilot, "/ev:review file=a.py")
        await wait_for(pilot, lambda: len(model.requests) == 2 and not screen.busy)
        sent = "".join(getattr(p, "text", "") for p in model.requests[1].contents[-1].parts)
        assert sent == "Please review a.py, looking for bugs."
        shown = await _command(pilot, "/mcp")
        assert "`/ev:review`" in shown and "`@ev:notes://today`" in shown


async def test_prompt_interactive_sends_the_first_prompt(root: Path, tmp_path: Path) -> None:
    """`-i TEXT`: the app opens and sends TEXT as soon as the session is ready, then stays open."""
    from tests.fakes.scripted_model import ScriptedModel, scripted_session
    from tests.fakes.scripted_model import text as scripted_text

    home = tmp_path / "home"
    home.mkdir()
    model = ScriptedModel(record=True).add(scripted_text("first answer"))
    app = GeminiApp(lambda: scripted_session(root, model, home), root, first_prompt="hello from -i")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: model.requests and not screen.busy, timeout=10)
        assert model.requests[0].contents[-1].parts[0].text == "hello from -i"
        assert app.is_running
