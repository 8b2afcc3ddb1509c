"""An `auto` alias in the app against the fake Gemini server: `/plan` plans with the Pro model, approving the plan
carries it out with Flash, and the status line says the alias and the model it stands for at each step."""

from __future__ import annotations

from pathlib import Path

from gemini_tui.app.main import GeminiApp
from gemini_tui.app.widgets.confirm_bar import ConfirmBar
from tests.app.app_driver import main_screen, type_and_send, wait_for
from tests.app.test_confirmations import GRACE
from tests.core.agents.world import Router, session_on
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text


async def test_plan_with_pro_then_carry_out_with_flash_and_the_status_line_follows(root: Path, home: Path) -> None:
    router = Router()
    with FakeGeminiServer() as server:
        server.responder = router
        session = session_on(server, root, home, model="auto-gemini-3")
        plan = session.plans.path / "greet.md"
        router.script("parent", reply(call("write_file", file_path=str(plan), content="1. greet\n")),
                      reply(call("exit_plan_mode", plan_filename="greet.md")), reply(text("Done.")))
        app = GeminiApp(session, root)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = main_screen(pilot)
            await wait_for(pilot, lambda: screen.ready)
            assert screen.status.model_name == "auto-gemini-3 → gemini-3-pro-preview"
            await type_and_send(pilot, "/plan add a greeting")
            bar = screen.query_one(ConfirmBar)
            await wait_for(pilot, lambda: bar.request is not None, timeout=15)
            assert screen.status.model_name == "auto-gemini-3 → gemini-3-pro-preview"
            await pilot.pause(GRACE)
            await pilot.press("y")  # approve, then accept each edit
            await wait_for(pilot, lambda: not screen.busy, timeout=15)
            assert screen.status.model_name == "auto-gemini-3 → gemini-3-flash-preview"
    assert [r.model for r in router.requests_of("parent")] == ["gemini-3-pro-preview", "gemini-3-pro-preview",
                                                               "gemini-3-flash-preview"]
