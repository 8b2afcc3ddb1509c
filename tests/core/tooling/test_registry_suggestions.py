"""Unknown tool names: a near miss is suggested, an unrelated name is not (the real built-in tool set)."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.scripted_model import ScriptedModel, scripted_session


def test_suggestions_for_unknown_tools_need_real_similarity(root: Path, home: Path) -> None:
    registry = scripted_session(root, ScriptedModel(), home).registry
    assert registry.suggest("delete_everything") == []
    assert "Did you mean" not in registry.unknown_tool_message("delete_everything")
    assert "google_web_search" in registry.unknown_tool_message("delete_everything")  # the list is still there
    assert registry.suggest("read_fil")[0] == "read_file"
    assert registry.suggest("ReadFile")[0] == "read_file"
    assert registry.suggest("run_shell") == ["run_shell_command"]
    for unrelated in ("make_coffee", "deploy_to_production", "xyz", "transfer_funds"):
        assert registry.suggest(unrelated) == [], unrelated
