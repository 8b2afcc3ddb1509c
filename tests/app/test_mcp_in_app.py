"""MCP servers from settings.json in the app: connected at startup, shown in the status line and in /mcp,
their tools confirmed inline."""

from __future__ import annotations

import json
from pathlib import Path

from gemini_tui.app.widgets.answer import MarkdownText
from gemini_tui.app.widgets.confirm_bar import ConfirmBar
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes import warm_start
from tests.fakes.scripted_model import ScriptedModel

FAKE_SERVER = Path(__file__).resolve().parents[1] / "fakes" / "mcp_server.py"


async def test_mcp_server_status_and_command(root: Path, tmp_path: Path) -> None:
    (root / ".gemini").mkdir()
    settings = {"mcpServers": {"fake": warm_start.server_entry(FAKE_SERVER, "stdio")}}
    (root / ".gemini" / "settings.json").write_text(json.dumps(settings))
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(120, 36)) as pilot:
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: screen.status.mcp.get("fake") == "connected", timeout=30)
        assert "MCP 1/1" in str(screen.status.render())
        await type_and_send(pilot, "/mcp")
        await wait_for(pilot, lambda: screen.chat.query(MarkdownText).filter(".command-output"))
        listing = screen.chat.query(MarkdownText).filter(".command-output").last().source
        assert "**fake**: connected" in listing
        assert screen.query_one(ConfirmBar).request is None


async def test_mcp_call_confirmed_inline_then_allowed_for_the_server(root: Path, tmp_path: Path) -> None:
    from tests.app.test_confirmations import GRACE
    from tests.fakes.scripted_model import call, text

    (root / ".gemini").mkdir()
    settings = {"mcpServers": {"fake": warm_start.server_entry(FAKE_SERVER, "stdio")}}
    (root / ".gemini" / "settings.json").write_text(json.dumps(settings))
    model = (ScriptedModel().add(call("echo", text="hello mcp")).add(text("echoed"))
             .add(call("add", a=2, b=3)).add(text("added")))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = main_screen(pilot)
        bar = screen.query_one(ConfirmBar)
        await wait_for(pilot, lambda: screen.status.mcp.get("fake") == "connected", timeout=30)
        await type_and_send(pilot, "echo it")
        await wait_for(pilot, lambda: bar.request is not None, timeout=10)
        assert "fake › echo" in str(bar.body.render())
        await pilot.pause(GRACE)
        await pilot.press("s")  # every tool of this server, for the session
        await wait_for(pilot, lambda: not screen.busy, timeout=10)
        await type_and_send(pilot, "add")
        await wait_for(pilot, lambda: not screen.busy and len(model.requests) == 4, timeout=10)
        assert bar.request is None
    assert "hello mcp" in str(model.requests[1].contents[-1].parts)
    assert "5" in str(model.requests[3].contents[-1].parts)
