"""/permissions lists each policy-file rule with its file, line, tier and priority, beside the settings rules."""

from __future__ import annotations

from pathlib import Path

from gemini_tui.app.permissions import permissions_markdown
from tests.fakes.scripted_model import ScriptedModel, scripted_session


def test_permissions_show_policy_file_rules(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".gemini" / "policies").mkdir(parents=True)
    (home / ".gemini" / "policies" / "mine.toml").write_text(
        '# rules\n[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "rm -rf"\ndecision = "deny"\n'
        'priority = 100\n\n[[rule]]\ntoolName = "glob"\ndecision = "ask_user"\npriority = 7\n')
    root = tmp_path / "work"
    root.mkdir()
    session = scripted_session(root, ScriptedModel(), home)
    text = permissions_markdown(session)
    mine = home / ".gemini" / "policies" / "mine.toml"
    assert f"denied, priority 4.100 (from user policy {mine}:2)" in text
    assert f"asks, priority 4.007 (from user policy {mine}:8)" in text
    assert "commandPrefix 'rm -rf'" in text
