"""Allow always, /permissions (list and revoke), Shift+Tab and Ctrl+Y, and the folder-trust question on start."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from gemini_tui.app.main import GeminiApp
from gemini_tui.app.screens.trust import TrustScreen
from gemini_tui.app.widgets.answer import MarkdownText
from gemini_tui.app.widgets.confirm_bar import ConfirmBar
from gemini_tui.core.approvals.grants import GrantScope
from gemini_tui.core.session.scheduler import ApprovalMode
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.app.test_confirmations import GRACE
from tests.fakes.scripted_model import ScriptedModel, call, scripted_session, text


def chat_text(screen) -> str:
    return "\n".join(w.text if isinstance(w, MarkdownText) else str(w.render()) for w in screen.chat.query("*"))


async def test_allow_always_persists_lists_and_revokes(root: Path, tmp_path: Path) -> None:
    # `touch`: a grant covers what a program is for inside the root (a redirect would still ask)
    model = (ScriptedModel().add(call("run_shell_command", command="touch one.txt")).add(text("1"))
             .add(call("run_shell_command", command="touch two.txt")).add(text("2"))
             .add(call("run_shell_command", command="touch three.txt")).add(text("3")))
    app = make_app(root, tmp_path, model)
    grants_file = tmp_path / "home" / ".gemini" / "grants.json"
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        bar = screen.query_one(ConfirmBar)
        await type_and_send(pilot, "first")
        await wait_for(pilot, lambda: bar.listening)
        assert "A always allow touch here" in str(bar.keys_line.render())
        await pilot.press("A")
        await wait_for(pilot, lambda: not screen.busy)
        saved = json.loads(grants_file.read_text())
        assert [e["rule"] for e in saved["workspaces"][str(root)]] == ["run_shell_command(touch)"]
        await type_and_send(pilot, "second")  # runs without asking
        await wait_for(pilot, lambda: (root / "two.txt").exists())
        await wait_for(pilot, lambda: not screen.busy)
        await type_and_send(pilot, "/permissions")
        await wait_for(pilot, lambda: "always:run_shell_command(touch)" in chat_text(screen))
        await type_and_send(pilot, "/permissions revoke 1")
        await wait_for(pilot, lambda: "Revoked: run_shell_command(touch)" in chat_text(screen))
        assert json.loads(grants_file.read_text())["workspaces"] == {}
        await type_and_send(pilot, "third")  # asks again
        await wait_for(pilot, lambda: bar.request is not None)
        assert not (root / "three.txt").exists()
        await wait_for(pilot, lambda: bar.listening)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy)
    assert (root / "one.txt").exists() and not (root / "three.txt").exists()


async def test_permissions_lists_settings_rules_with_their_file(root: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    user = home / ".gemini" / "settings.json"
    user.write_text(json.dumps({"tools": {"allowed": ["run_shell_command(git status)"], "exclude": ["web_fetch"]},
                                "mcp": {"excluded": ["evil"]},
                                "hooks": {"BeforeTool": [{"matcher": "write_file",
                                                          "hooks": [{"type": "command", "command": "check.sh"}]}]}}))
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(140, 50)) as pilot:
        screen = main_screen(pilot)
        screen.session.grants.grant(["read_file"], GrantScope.session)
        await type_and_send(pilot, "/permissions")
        await wait_for(pilot, lambda: "Rules from settings" in chat_text(screen))
        shown = chat_text(screen)
        assert f"{user}: tools.allowed" in shown and f"{user}: tools.exclude" in shown
        assert "run_shell_command(git status)" in shown and "session:read_file" in shown
        assert f"{user}: mcp.excluded" in shown and "check.sh" in shown and "BeforeTool" in shown
        await type_and_send(pilot, "/permissions revoke nothing-like-it")
        await wait_for(pilot, lambda: "no grant 'nothing-like-it'" in chat_text(screen))
        await type_and_send(pilot, "/permissions revoke all")
        await wait_for(pilot, lambda: len(screen.session.grants) == 0)


async def test_disable_always_allow_hides_the_key(root: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({"security": {"disableAlwaysAllow": True}}))
    model = ScriptedModel().add(call("run_shell_command", command="echo x")).add(text("ok"))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        bar = screen.query_one(ConfirmBar)
        await type_and_send(pilot, "go")
        await wait_for(pilot, lambda: bar.listening)
        assert "always allow" not in str(bar.keys_line.render())
        await pilot.press("A")
        await pilot.pause(0.1)
        assert bar.request is not None and len(screen.session.grants) == 0
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy)


async def test_shift_tab_cycles_to_plan_never_yolo(root: Path, tmp_path: Path) -> None:
    model = ScriptedModel().add(call("write_file", file_path=str(root / "p.txt"), content="x")).add(text("ok"))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(110, 30)) as pilot:
        screen = main_screen(pilot)
        seen = []
        for _ in range(6):
            await pilot.press("shift+tab")
            seen.append(screen.session.approval_mode)
        assert seen == [ApprovalMode.auto_edit, ApprovalMode.plan, ApprovalMode.default] * 2
        await pilot.press("shift+tab", "shift+tab")
        assert screen.status.approval_mode == "plan"
        await type_and_send(pilot, "write p")
        await wait_for(pilot, lambda: not screen.busy and model.requests and len(model.requests) == 2)
        assert not (root / "p.txt").exists()
        assert "Plan mode is on" in str(model.requests[-1].contents[-1].parts[0].response)
        await pilot.press("ctrl+y")
        assert screen.session.approval_mode is ApprovalMode.yolo
        await pilot.press("shift+tab")
        assert screen.session.approval_mode is ApprovalMode.default


async def test_ctrl_y_refused_when_yolo_is_disabled(root: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({"security": {"disableYoloMode": True}}))
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(110, 30)) as pilot:
        screen = main_screen(pilot)
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert screen.session.approval_mode is ApprovalMode.default and screen.status.approval_mode == "default"


# -- the folder-trust question ----------------------------------------------------------------------------------
@pytest.mark.usefixtures("untrusted_env")
@pytest.mark.parametrize(("key", "level", "applied"), [("y", "TRUST_FOLDER", True), ("p", "TRUST_PARENT", True),
                                                       ("n", "DO_NOT_TRUST", False), ("escape", None, False)])
async def test_first_start_asks_and_the_answer_decides(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       key: str, level: str | None, applied: bool) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("GEMINI_CLI_HOME", str(home))
    marker = root / "DISCOVERY-RAN"  # inside the root: the discovery command runs in the sandbox
    script = f"{sys.executable} -c \"open({str(marker)!r}, 'w'); print('[]')\""
    (root / ".gemini").mkdir()
    (root / ".gemini" / "settings.json").write_text(json.dumps(
        {"tools": {"discoveryCommand": script, "callCommand": "true", "allowed": ["run_shell_command"]}}))
    app = GeminiApp(lambda: scripted_session(root, ScriptedModel(), home), root)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen) and app.screen.query("#trust-body"))
        await pilot.pause()
        screen = main_screen(pilot)
        body = str(app.screen.query_one("#trust-body").render())
        assert "tools.discoveryCommand" in body and "tools.allowed" in body
        # typed at once: belongs to the prompt, answers nothing ("at once" from now: on a loaded machine the
        # screen may have been up for longer than the grace period by the time the test gets here)
        trust = app.screen
        assert isinstance(trust, TrustScreen)
        trust.guard.arm()
        await pilot.press("y", "a")
        assert isinstance(app.screen, TrustScreen) and screen.prompt.input.text == "ya"
        await pilot.pause(GRACE)
        await pilot.press(key)
        await wait_for(pilot, lambda: screen.ready)
        assert screen.session.settings.workspace_trusted is applied
        assert (screen.session.settings.tools_allowed == ["run_shell_command"]) is applied
        await wait_for(pilot, lambda: marker.exists() or not applied, timeout=10)
        assert any("not trusted" in n.message for n in screen.session.notices) is not applied
    rules_file = home / ".gemini" / "trustedFolders.json"
    if level is None:
        assert not rules_file.exists()
    else:
        assert json.loads(rules_file.read_text()) == {str(root): level}
    assert marker.exists() is applied


@pytest.mark.usefixtures("untrusted_env")
async def test_after_dont_trust_the_notice_names_the_way_back_and_permissions_trust_takes_it(
        root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("GEMINI_CLI_HOME", str(home))
    (root / ".gemini").mkdir()
    (root / ".gemini" / "settings.json").write_text(json.dumps({"tools": {"allowed": ["run_shell_command"]}}))
    (home / ".gemini").mkdir()
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(root): "DO_NOT_TRUST"}))
    app = GeminiApp(lambda: scripted_session(root, ScriptedModel(), home), root)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: screen.ready)
        notice = next(n.message for n in screen.session.notices if "not trusted" in n.message)
        assert "/permissions trust" in notice  # the way back, named where the user reads why
        await type_and_send(pilot, "/permissions")
        await wait_for(pilot, lambda: "Not applied until you trust it" in chat_text(screen))
        shown = chat_text(screen)
        # a sentence of its own after the paragraph before it (the sandbox's, now): "…. Not applied until you trust it:"
        assert re.search(r"\.\s*\n\s*\nNot applied until you trust it:", shown), shown
        await type_and_send(pilot, "/permissions trust")
        await wait_for(pilot, lambda: "is now trusted" in chat_text(screen))
    assert json.loads((home / ".gemini" / "trustedFolders.json").read_text()) == {str(root): "TRUST_FOLDER"}


async def test_untrust_records_the_folder_as_not_trusted(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(120, 36)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "/permissions untrust")
        await pilot.pause(0.2)
        assert "is now not trusted" in chat_text(screen)
    saved = json.loads((tmp_path / "home" / ".gemini" / "trustedFolders.json").read_text())
    assert saved == {str(root): "DO_NOT_TRUST"}
