"""The status line and /about say whether commands are sandboxed; a refused sandbox is said at start-up."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemini_tui.app.widgets.answer import MarkdownText
from gemini_tui.core.processes.sandbox import SandboxRequest, build_sandbox
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes.scripted_model import ScriptedModel

BWRAP_WORKS = build_sandbox(SandboxRequest("true", "t"), ["/"]).problem is None


def about(screen: object) -> list[str]:
    return [m.source for m in screen.chat.query(MarkdownText).filter(".command-output")]  # type: ignore[attr-defined]


@pytest.mark.parametrize("sandbox, shown, said", [
    (False, "no sandbox", "run without a sandbox"),
    pytest.param(True, "sandbox: bwrap", "bubblewrap sandbox",
                 marks=pytest.mark.skipif(not BWRAP_WORKS, reason="bubblewrap cannot run here")),
])
async def test_status_and_about(sandbox: bool, shown: str, said: str, root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, ScriptedModel(), sandbox=sandbox)
    async with app.run_test(size=(140, 36)) as pilot:
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: screen.status.sandbox == shown)
        assert shown in str(screen.status.render())
        await type_and_send(pilot, "/about")
        await wait_for(pilot, lambda: about(screen))
        assert said in about(screen)[-1] and str(root) in about(screen)[-1]


async def test_an_unusable_sandbox_shows_and_is_explained(root: Path, tmp_path: Path) -> None:
    (root / ".gemini").mkdir()
    (root / ".gemini" / "settings.json").write_text('{"tools": {"sandbox": "docker"}}')
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(140, 36)) as pilot:
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: screen.status.sandbox == "sandbox unavailable")
        await wait_for(pilot, lambda: any("Shell commands will be refused" in str(n.render())
                                          for n in screen.chat.query(".notice")))
        await type_and_send(pilot, "/about")
        await wait_for(pilot, lambda: about(screen))
        assert "Commands are refused" in about(screen)[-1] and "docker" in about(screen)[-1]
