"""replace's whitespace-flexible tier and the model tier against the fake Gemini
server through the real google-genai client (scripted answers: good, wrong, ambiguous, slow, error)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.stats import SessionStats
from gemini_tui.core.models.edit_fixer import ModelEditFixer
from gemini_tui.core.models.gemini import GeminiModel
from gemini_tui.tools.replace.correction import EditPlan, plan_edit
from gemini_tui.tools.replace.tool import ReplaceTool
from gemini_tui.tools.workspace import Workspace
from tests.fakes.gemini_server import FakeGeminiServer, error_reply, reply, text

SOURCE = "def main():\n    total = compute(a, b)\n    if total > 10:\n        return 'big'\n    return 'small'\n"


def test_whitespace_flexible_tier() -> None:
    content = "function myFunc(a, b) {\n  return a + b;\n}\n"
    plan = plan_edit(content, "function  myFunc( a, b ) {\n    return a+b;\n}", "function myFunc(a, b) {\n"
                     "    return a+b;\n    // done\n}")
    assert isinstance(plan, EditPlan) and "whitespace" in (plan.correction or "")
    # kept lines are written as the file has them; the new line follows the file's indentation
    assert plan.new_content == "function myFunc(a, b) {\n  return a + b;\n  // done\n}\n"
    mixed = plan_edit(SOURCE, "total = compute(a, b)\n  if total > 10:\n          return 'big'",
                      "total = compute(a, b)\n  if total > 20:\n          return 'big'")
    assert isinstance(mixed, EditPlan)
    assert mixed.new_content == SOURCE.replace("> 10", "> 20")
    quotes = plan_edit(SOURCE, 'if total > 10:\n    return "big"', 'if total > 10:\n    return "huge"')
    # the changed line is the file's line with the model's change: the file's quote style stays
    assert isinstance(quotes, EditPlan) and quotes.new_content == SOURCE.replace("'big'", "'huge'")


def test_flexible_tier_refuses_two_places() -> None:
    content = "x = f( 1 )\ny = 2\nx = f( 1 )\n"
    assert not isinstance(plan_edit(content, "x = f(1)", "x = f(2)"), EditPlan)


def _answer(search: str, replace: str, why: str = "the quotes differ") -> Any:
    usage = {"promptTokenCount": 40, "candidatesTokenCount": 7, "totalTokenCount": 47}
    return reply(text(json.dumps({"search": search, "replace": replace, "explanation": why})), usage=usage)


GOOD = ("    if total > 10:\n        return 'big'", "    if total > 10:\n        return 'huge'")


@pytest.mark.parametrize(("scripted", "applied"), [
    ("good", True),
    ("wrong", False),  # another place of the file
    ("ambiguous", False),  # text found twice
    ("slow", False),
    ("error", False),
    ("not-json", False),
])
async def test_model_tier(gemini_server: FakeGeminiServer, root: Path, scripted: str, applied: bool) -> None:
    target = root / "m.py"
    target.write_text(SOURCE)
    answers = {
        "good": _answer(*GOOD),
        "wrong": _answer("def main():", "def main():  # big"),
        "ambiguous": _answer("    return", "    yield"),
        "slow": _answer(*GOOD),
        "error": error_reply(500, "boom"),
        "not-json": reply(text("I think you meant the big branch.")),
    }
    answer = answers[scripted]
    if scripted == "slow":
        answer.delay_s = 2.0
    gemini_server.script(answer)
    model = GeminiModel("gemini-2.5-flash", "test-key", base_url=gemini_server.base_url)
    stats = SessionStats()
    tool = ReplaceTool(Workspace(root), ModelEditFixer(lambda: model, stats, timeout_s=0.5))
    # the model misremembers the code (the comparison, the value and indentation: more than one slipped
    # character in a line, so no approximate match)
    params = tool.validate_params({"file_path": str(target), "old_string": 'if total >= 10.0:\n  return "big"',
                                   "new_string": 'if total >= 10.0:\n  return "huge"'})
    details = await tool.should_confirm_execute(params, AbortSignal())  # type: ignore[arg-type]
    result = await tool.execute(params, AbortSignal())  # type: ignore[arg-type]
    assert len(gemini_server.requests) == 1  # asked once for the review and the run (cached per call)
    sent = gemini_server.requests[0]
    assert sent.path.endswith(":generateContent") and not sent.body.get("tools")
    config = sent.body.get("generationConfig", {})
    assert config.get("responseMimeType") == "application/json" and "search" in json.dumps(config)
    assert "if total >= 10" in json.dumps(sent.contents)
    if applied:
        assert result.ok and target.read_text() == SOURCE.replace("'big'", "'huge'")
        assert "corrected by the model (the quotes differ)" in str(result.llm_content)
        assert details is not None and "corrected by the model" in details.title
        assert stats.model("gemini-2.5-flash").tokens.total == 47
    else:
        assert not result.ok and target.read_text() == SOURCE
        assert "closest region" in str(result.llm_content)
        assert details is None
    assert stats.model("gemini-2.5-flash").requests == 1


async def test_the_switch_and_the_offline_model(root: Path, home: Path, gemini_server: FakeGeminiServer) -> None:
    from gemini_tui.cli.assemble import build_session

    env = {"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": gemini_server.base_url}
    on = build_session(root, home=home, env=env)
    assert isinstance(on.registry.get("replace").fixer, ModelEditFixer)  # type: ignore[union-attr]
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini/settings.json").write_text(json.dumps({"tools": {"disableLLMCorrection": True}}))
    off = build_session(root, home=home, env=env)
    assert off.registry.get("replace").fixer is None  # type: ignore[union-attr]
    (home / ".gemini/settings.json").write_text("{}")
    offline = build_session(root, home=home, env={}, model="offline")
    fixer = offline.registry.get("replace").fixer  # type: ignore[union-attr]
    (root / "f.txt").write_text("a = 1\n")
    tool = offline.registry.get("replace")
    params = tool.validate_params({"file_path": "f.txt", "old_string": "b = 2", "new_string": "b = 3"})
    result = await tool.execute(params, AbortSignal())  # type: ignore[union-attr, arg-type]
    assert not result.ok and fixer is not None and gemini_server.requests == []
