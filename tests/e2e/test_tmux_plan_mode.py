"""End to end in a real terminal (tmux) against the fake Gemini server: `/plan goal` enters plan mode, the model
writes its plan in the plans folder its system instruction names, revises it, the user rejects one hunk of the
revision in the diff review, approves leaving plan mode with "accept each", the todo list advances as the
write_todos calls run, an ask_user question is answered with a number key, and Ctrl+T hides the list; Ctrl+X opens
the plan under approval in $VISUAL, and the model is told the edited plan."""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

from gemini_tui.app.typing_guard import GRACE_PERIOD
from tests.e2e.terminal import Terminal, app_command, fake_gemini_env, send, start_app
from tests.fakes.gemini_server import FakeGeminiServer, RecordedRequest, Reply, call, reply, text

GRACE = GRACE_PERIOD + 0.3
DRAFT = [f"{n}. step {n}" for n in range(1, 16)]
REVISED = [line.upper() if n in (2, 14) else line for n, line in enumerate(DRAFT, 1)]
TODOS = [{"description": "Write greet.py", "status": "in_progress"}, {"description": "Test it", "status": "pending"}]
ADVANCED = [{"description": "Write greet.py", "status": "completed"},
            {"description": "Test it", "status": "in_progress"}]
QUESTION = {"question": "Which greeting?", "header": "Greeting", "type": "choice",
            "options": [{"label": "Hello", "description": "formal"}, {"label": "Hi", "description": "short"}]}


def plans_folder(request: RecordedRequest) -> Path | None:
    instruction = "".join(p.get("text", "") for p in (request.body.get("systemInstruction") or {}).get("parts", []))
    found = re.search(r"`(/[^`\n]*plans)/?`", instruction)
    return Path(found.group(1)) if found else None


def scripted() -> tuple[Callable[[RecordedRequest], Reply | None], dict[str, Path]]:
    """Answers by how many model turns the request holds, writing the plan where the instruction says."""
    seen: dict[str, Path] = {}

    def respond(request: RecordedRequest) -> Reply | None:
        if ":streamGenerateContent" not in request.path:
            return None
        if (folder := plans_folder(request)) is not None:
            seen.setdefault("plans", folder)
        plan = str(seen.get("plans", Path("/nonexistent")) / "greet.md")
        steps = [
            reply(call("write_file", file_path=plan, content="\n".join(DRAFT) + "\n")),
            reply(call("write_file", file_path=plan, content="\n".join(REVISED) + "\n")),
            reply(call("exit_plan_mode", plan_filename="greet.md")),
            reply(call("write_todos", todos=TODOS)),
            reply(call("ask_user", questions=[QUESTION])),
            reply(call("write_todos", todos=ADVANCED)),
            reply(text("All done.")),
        ]
        step = sum(1 for content in request.contents if content.get("role") == "model")
        return steps[step] if step < len(steps) else reply(text("All done."))

    return respond, seen


def told(server: FakeGeminiServer, name: str) -> list[dict[str, object]]:
    return [r["response"] for request in server.requests for r in request.function_responses()
            if r["name"] == name]


def test_plan_revise_reject_a_hunk_approve_each_todos_advance_ask_and_hide(root: Path, tmp_path: Path) -> None:
    with FakeGeminiServer() as server:
        server.responder, seen = scripted()
        with start_app(root, tmp_path, server) as terminal:
            send(terminal, "/plan add a greeting")
            terminal.wait_for(lambda s: "greet.md" in s and "hunk 1/2" in s)  # the revision, in the diff review
            plan = seen["plans"] / "greet.md"
            assert plan.read_text() == "\n".join(DRAFT) + "\n"  # the first draft was written unasked
            time.sleep(GRACE)
            terminal.keys("Space")  # reject the first hunk (step 2); the second (step 14) is kept
            time.sleep(0.3)
            terminal.keys("y")
            screen = terminal.wait_for("Approve the plan")
            assert "14. STEP 14" in screen and "auto-accept edits" in screen
            assert "mode: plan" in screen.splitlines()[0], screen
            time.sleep(GRACE)
            terminal.keys("y")  # approve, each later edit to be accepted by hand
            screen = terminal.wait_for("Which greeting?")
            assert "Todo 0/2" in screen and "◐ Write greet.py" in screen and "○ Test it" in screen
            time.sleep(GRACE)
            terminal.keys("2")
            screen = terminal.wait_for("All done.")
            screen = terminal.wait_for("Todo 1/2")
            assert "● Write greet.py" in screen and "◐ Test it" in screen
            assert "mode: default" in screen.splitlines()[0], screen  # the status line: plan mode is over
            terminal.keys("C-t")
            screen = terminal.wait_for(lambda s: "Todo 1/2" not in s)
            assert "◐ Test it" not in screen
            terminal.keys("C-t")
            terminal.wait_for("Todo 1/2")
    kept = plan.read_text().splitlines()
    assert kept[1] == "2. step 2" and kept[13] == "14. STEP 14", kept
    revision = str(told(server, "write_file")[1]["output"])  # told what was rejected and what was written
    assert "rejected hunk(s) 1 (line 2)" in revision and "+14. STEP 14" in revision, revision
    assert "STEP 2\n" not in revision, revision
    [approved] = told(server, "exit_plan_mode")
    assert str(approved["output"]).startswith("Plan approved. Switching to Default mode"), approved
    [answered] = told(server, "ask_user")
    assert json.loads(str(answered["output"])) == {"answers": {"0": "Hi"}}


EDITOR = """import sys
old, new, path = sys.argv[1:4]
text = open(path).read()
open(path, "w").write(text.replace(old, new))
"""


def test_ctrl_x_edits_the_plan_in_the_editor_and_the_model_is_told_the_edit(root: Path, tmp_path: Path) -> None:
    editor = tmp_path / "editor.py"
    editor.write_text(EDITOR)
    home = tmp_path / "home"
    home.mkdir()
    mine = "3. step three, done my way"
    with FakeGeminiServer() as server:
        respond, seen = scripted()
        # the draft, then straight to approval, then an answer
        server.responder = lambda request: {1: reply(call("exit_plan_mode", plan_filename="greet.md")),
                                            2: reply(text("Building it."))}.get(sum(
            1 for c in request.contents if c.get("role") == "model")) or respond(request)
        env = {**fake_gemini_env(server, home), "VISUAL": f"{sys.executable} {editor} '3. step 3' '{mine}'"}
        with Terminal(app_command(), root, env) as terminal:
            terminal.wait_for("Ask anything")
            send(terminal, "/plan add a greeting")
            # the key bar may name the bar's keys a frame after the bar shows
            screen = terminal.wait_for(lambda s: "Approve the plan" in s and "ctrl+x" in s)
            assert mine not in screen
            time.sleep(GRACE)
            terminal.keys("C-x")  # the plan in $VISUAL; the bar then shows what it saved
            screen = terminal.wait_for(mine)
            assert "3. step 3\n" not in screen
            time.sleep(GRACE)
            terminal.keys("y")
            terminal.wait_for("Building it.")
    plan = seen["plans"] / "greet.md"
    assert plan.read_text().splitlines()[2] == mine
    [approved] = told(server, "exit_plan_mode")
    output = str(approved["output"])
    assert output.startswith("Plan approved. Switching to Default mode") and "edited the plan" in output, output
    assert mine in output and "3. step 3\n" not in output, output
