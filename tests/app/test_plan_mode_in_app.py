"""Plan mode in the app, with the real Session around a scripted model: `/plan goal` enters it, the first draft of
the plan is written unasked in the plans folder, a revision opens the diff review where one hunk is rejected (the
model is told what was kept), the plan is approved with "accept each" (default mode), the todo list advances as
write_todos runs and Ctrl+T hides it, and an ask_user question is answered with a number key."""

from __future__ import annotations

import json
from pathlib import Path

from gemini_tui.app.main import GeminiApp
from gemini_tui.app.screens.ask_user import AskUserScreen
from gemini_tui.app.screens.diff_review import DiffReviewScreen
from gemini_tui.app.widgets.confirm_bar import ConfirmBar
from gemini_tui.core.approvals.policy import ApprovalMode
from gemini_tui.core.ground.model_api import FunctionResponse
from tests.app.app_driver import main_screen, type_and_send, wait_for
from tests.app.test_confirmations import GRACE
from tests.fakes.scripted_model import ScriptedModel, call, scripted_session, text

DRAFT = [f"{n}. step {n}" for n in range(1, 16)]
REVISED = [line.upper() if n in (2, 14) else line for n, line in enumerate(DRAFT, 1)]


def responses(model: ScriptedModel, name: str) -> list[dict[str, object]]:
    return [part.response for request in model.requests for content in request.contents[-1:]
            for part in content.parts if isinstance(part, FunctionResponse) and part.name == name]


async def test_plan_revise_reject_a_hunk_approve_each_todos_and_a_question(root: Path, tmp_path: Path) -> None:
    model = ScriptedModel()
    home = tmp_path / "home"
    home.mkdir()
    session = scripted_session(root, model, home)
    plan = session.plans.path / "greet.md"
    todos = [{"description": "Write greet.py", "status": "in_progress"}, {"description": "Test it",
                                                                        "status": "pending"}]
    advanced = [{"description": "Write greet.py", "status": "completed"}, {"description": "Test it",
                                                                         "status": "in_progress"}]
    question = {"question": "Which greeting?", "header": "Greeting", "type": "choice",
                "options": [{"label": "Hello", "description": "formal"}, {"label": "Hi", "description": "short"}]}
    (model.add(call("write_file", file_path=str(plan), content="\n".join(DRAFT) + "\n"))
     .add(call("write_file", file_path=str(plan), content="\n".join(REVISED) + "\n"))
     .add(call("exit_plan_mode", plan_filename="greet.md"))
     .add(call("write_todos", todos=todos)).add(call("write_todos", todos=advanced))
     .add(call("ask_user", questions=[question])).add(text("Done.")))
    app = GeminiApp(session, root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: screen.ready)
        await type_and_send(pilot, "/plan add a greeting")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffReviewScreen), timeout=15)
        assert session.approval_mode is ApprovalMode.plan and screen.status.approval_mode == "plan"
        assert plan.read_text() == "\n".join(DRAFT) + "\n"  # the first draft: written unasked
        review = app.screen
        await wait_for(pilot, lambda: len(review.hunks) == 2)
        await pilot.pause(GRACE)
        await pilot.press("space")  # reject the first hunk (step 2), keep the second (step 14)
        await pilot.press("y")
        bar = screen.query_one(ConfirmBar)
        await wait_for(pilot, lambda: bar.request is not None, timeout=15)
        assert f"Approve the plan {plan}?" in str(bar.title_line.render())
        assert "14. STEP 14" in str(bar.body.render()) and "auto-accept edits" in str(bar.body.render())
        await pilot.pause(GRACE)
        await pilot.press("y")  # approve, then accept each edit
        await wait_for(pilot, lambda: screen.todos.display and "1/2" in str(screen.todos.render()), timeout=15)
        assert session.approval_mode is ApprovalMode.default and screen.status.approval_mode == "default"
        await wait_for(pilot, lambda: isinstance(app.screen, AskUserScreen), timeout=30)
        await pilot.pause(0.2)
        await pilot.press("2")
        await wait_for(pilot, lambda: not screen.busy, timeout=15)
        assert "● Write greet.py" in str(screen.todos.render()) and "◐ Test it" in str(screen.todos.render())
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert not screen.todos.display
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert screen.todos.display
    kept = plan.read_text().splitlines()
    assert kept[1] == "2. step 2" and kept[13] == "14. STEP 14"  # the rejected hunk is not in the plan
    [told] = responses(model, "write_file")[1:2]
    assert "step 2" in json.dumps(told).lower() or "hunk" in json.dumps(told).lower()
    [approved] = responses(model, "exit_plan_mode")
    assert str(approved["output"]).startswith("Plan approved. Switching to Default mode")
    [answered] = responses(model, "ask_user")
    assert json.loads(str(answered["output"])) == {"answers": {"0": "Hi"}}


async def test_a_dismissed_question_is_an_answer_not_a_rejection(root: Path, tmp_path: Path) -> None:
    """As Gemini CLI: Esc on ask_user runs the call, and the model is told the user dismissed it."""
    question = {"question": "Which language?", "header": "Lang", "type": "choice",
                "options": [{"label": "Python", "description": ""}, {"label": "Rust", "description": ""}]}
    model = ScriptedModel().add(call("ask_user", questions=[question])).add(text("Fine, I choose."))
    home = tmp_path / "home"
    home.mkdir()
    app = GeminiApp(scripted_session(root, model, home), root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "ask me")
        await wait_for(pilot, lambda: isinstance(app.screen, AskUserScreen), timeout=30)
        await pilot.pause(0.2)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, timeout=15)
    assert responses(model, "ask_user") == [{"output": "User dismissed ask_user dialog without answering."}]
