"""Each slash command typed into the real app, with a real Session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from gemini_tui.app.screens.help import HelpScreen
from gemini_tui.app.screens.main_screen import MainScreen
from gemini_tui.app.widgets.answer import MarkdownText
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes.scripted_model import ScriptedModel, text


def outputs(screen: MainScreen) -> list[str]:
    return [m.source for m in screen.chat.query(MarkdownText).filter(".command-output")]


def notices(screen: MainScreen) -> list[str]:
    return [str(n.render()) for n in screen.chat.query(".notice")]


async def run(pilot: Pilot[Any], line: str) -> MainScreen:
    screen = main_screen(pilot)
    last = screen.chat.turns[-1] if screen.chat.turns else None  # the count can stay: an old turn may fold meanwhile
    await type_and_send(pilot, line)
    await wait_for(pilot, lambda: bool(screen.chat.turns) and screen.chat.turns[-1] is not last
                   and len(screen.chat.turns[-1].children) > 1)
    return screen


async def test_help_tools_and_unknown(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(110, 36)) as pilot:
        await type_and_send(pilot, "/help")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        screen = await run(pilot, "/tools")
        assert "`run_shell_command`" in outputs(screen)[-1]
        screen = await run(pilot, "/nosuch")
        assert "Unknown command: /nosuch" in notices(screen)[-1]


async def test_memory_add_show_refresh(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(110, 36)) as pilot:
        screen = await run(pilot, "/memory show")
        assert "Memory is empty" in outputs(screen)[-1]
        await run(pilot, "/memory add the tests use pytest")
        memory_file = tmp_path / "home" / ".gemini" / "GEMINI.md"
        assert "- the tests use pytest" in memory_file.read_text()
        await run(pilot, "/memory refresh")
        assert "Memory refreshed" in notices(screen)[-1]
        await run(pilot, "/memory show")
        assert "the tests use pytest" in outputs(screen)[-1]


async def test_stats_after_a_turn_and_clear(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, ScriptedModel().add(text("hello")))
    async with app.run_test(size=(110, 36)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "hi")
        await wait_for(pilot, lambda: not screen.busy and screen.session.history)
        await run(pilot, "/stats")
        assert "scripted-model | 1 | 0 | 15" in outputs(screen)[-1]
        await type_and_send(pilot, "/clear")
        await wait_for(pilot, lambda: not screen.chat.turns)
        assert screen.session.history == []


async def test_chat_save_list_resume(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, ScriptedModel().add(text("the answer")))
    async with app.run_test(size=(110, 36)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "remember this")
        await wait_for(pilot, lambda: not screen.busy and len(screen.session.history) == 2)
        await run(pilot, "/chat save first")
        assert "saved as 'first'" in notices(screen)[-1]
        await run(pilot, "/chat list")
        assert "`first`" in outputs(screen)[-1]
        await type_and_send(pilot, "/clear")
        await wait_for(pilot, lambda: not screen.session.history)
        await type_and_send(pilot, "/chat resume first")
        await wait_for(pilot, lambda: len(screen.session.history) == 2 and "Resumed" in " ".join(notices(screen)))
        assert "remember this" in " ".join(str(p.render()) for p in screen.chat.query(".user-prompt"))
        await run(pilot, "/chat resume missing")
        assert "missing" in notices(screen)[-1]


async def test_mcp_without_servers_and_quit(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(110, 36)) as pilot:
        screen = await run(pilot, "/mcp")
        assert "No MCP servers configured" in outputs(screen)[-1]
        await type_and_send(pilot, "/quit")
        await pilot.pause()
    assert not app.is_running


async def test_command_palette_runs_a_slash_command(root: Path, tmp_path: Path) -> None:
    from textual.command import CommandPalette

    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(110, 36)) as pilot:
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: screen.ready)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"/stats")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: outputs(screen) and "Session stats" in outputs(screen)[-1])


async def test_memory_show_keeps_the_files_lines_as_written(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(110, 36)) as pilot:
        await run(pilot, "/memory add tea")
        await run(pilot, "/memory refresh")
        screen = await run(pilot, "/memory show")
        output = screen.chat.query(MarkdownText).filter(".command-output").last()
        await pilot.pause()
        lines = [strip.text.strip() for strip in output.lines_for(output.content_size.width)]
        # as Markdown, the closing '--- End of context' line ran into the last list item: in a code block the
        # file's lines are drawn as written, one under the other
        tea = lines.index("- tea")
        assert lines[tea + 1].startswith("--- End of context")
