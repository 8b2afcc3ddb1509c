"""Code the model wrote runs only where the user saw it: with `make` / `pytest` / a script allowed, a runner asks
again (listing the files) after the model changed files this session that nobody reviewed (auto_edit, or an
"allow edits" grant); a reviewed edit, or the sandbox, lets it run; yolo asks nothing, by the user's choice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.core.approvals.policy import ApprovalMode
from gemini_tui.core.ground.confirmation import ConfirmationOutcome, Decision
from tests.core.approvals.test_policy import answering
from tests.fakes.scripted_model import ScriptedModel, call, scripted_session, text

RUNNERS = {  # rule -> (the file the model writes, its content making {M}, the command)
    "make": ("Makefile", "all:\n\ttouch {M}\n", "make"),
    "python3": ("tool.py", "open({M!r}, 'w')\n", "python3 tool.py"),
    "npm test": ("package.json", '{{"name": "x", "version": "1.0.0", "scripts": {{"test": "touch {M}"}}}}',
                 "npm test"),
}


def _settings(home: Path, rules: list[str]) -> None:
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(
        {"tools": {"allowed": [f"run_shell_command({r})" for r in rules]}}))


async def _run(root: Path, home: Path, calls: list[Any], mode: ApprovalMode, interactive: bool = False,
               answer: Any = None, **kwargs: Any) -> tuple[list[dict[str, Any]], list[Any]]:
    model = ScriptedModel()
    for one in calls:
        model.add(one).add(text("ok"))
    session = scripted_session(root, model, home, approval_mode=mode, interactive=interactive, **kwargs)
    asked, listener = answering(session, answer)
    responses = []
    try:
        for _ in calls:
            await session.send("go")
            user = [c for c in model.requests[-1].contents if c.role == "user"][-1]
            responses.extend(part.response for part in user.parts if hasattr(part, "response"))
    finally:
        listener.cancel()
        await session.close()
    return responses, asked


@pytest.mark.parametrize("runner", list(RUNNERS))
async def test_an_allowed_runner_asks_again_after_unreviewed_edits(root: Path, home: Path, runner: str) -> None:
    name, content, command = RUNNERS[runner]
    marker = root / "MARK"
    _settings(home, [runner])
    responses, _ = await _run(root, home, [
        call("write_file", file_path=str(root / name), content=content.format(M=str(marker))),
        call("run_shell_command", command=command),
    ], ApprovalMode.auto_edit, sandbox=False)  # the sandbox (on by default) would contain it: see below
    assert "error" not in responses[0] and (root / name).exists()  # auto_edit wrote it unasked
    assert "error" in responses[1] and name in responses[1]["error"], responses[1]
    assert "without your review" in responses[1]["error"]
    assert not marker.exists()


async def test_the_same_runner_runs_unasked_when_nothing_was_changed_unseen(root: Path, home: Path) -> None:
    marker = root / "MARK"
    (root / "Makefile").write_text(f"all:\n\ttouch {marker}\n")  # the user's own Makefile
    _settings(home, ["make"])
    responses, _ = await _run(root, home, [call("run_shell_command", command="make")], ApprovalMode.auto_edit)
    assert "error" not in responses[0] and marker.exists()


async def test_a_reviewed_edit_lets_the_runner_run_and_an_approval_clears_the_list(root: Path, home: Path) -> None:
    marker, second = root / "MARK", root / "MARK2"
    _settings(home, ["make"])

    def approve(_event: Any) -> Decision:
        return Decision(ConfirmationOutcome.proceed_once)

    # default mode: the user sees and approves the edit, so make runs unasked
    responses, asked = await _run(root, home, [
        call("write_file", file_path=str(root / "Makefile"), content=f"all:\n\ttouch {marker}\n"),
        call("run_shell_command", command="make"),
    ], ApprovalMode.default, interactive=True, answer=approve)
    assert len(asked) == 1 and marker.exists()
    # auto_edit: the edit is unseen, make asks listing it; once approved, the next make runs unasked
    (root / "Makefile").unlink()
    responses, asked = await _run(root, home, [
        call("write_file", file_path=str(root / "Makefile"), content=f"all:\n\ttouch {second}\n"),
        call("run_shell_command", command="make"),
        call("run_shell_command", command="make -B"),
    ], ApprovalMode.auto_edit, interactive=True, answer=approve, sandbox=False)
    assert len(asked) == 1 and "Makefile" in asked[0].call.reason
    assert second.exists() and all("error" not in r for r in responses)


async def test_in_the_sandbox_the_runner_runs_contained(root: Path, home: Path) -> None:
    marker = root / "MARK"
    _settings(home, ["make"])
    responses, _ = await _run(root, home, [
        call("write_file", file_path=str(root / "Makefile"), content=f"all:\n\ttouch {marker}\n"),
        call("run_shell_command", command="make"),
    ], ApprovalMode.auto_edit, sandbox=True)
    assert "error" not in responses[1], responses[1]
    assert marker.exists()


async def test_headless_refusals_name_only_what_would_let_the_call_run(root: Path, home: Path) -> None:
    # issue 22 finding 7: tools.allowed never lifts a protected path, so its refusal must not suggest it
    _settings(home, ["echo"])
    responses, _ = await _run(root, home, [
        call("write_file", file_path=str(root / "GEMINI.md"), content="x"),
        call("run_shell_command", command="echo x > notes.txt"),
        call("run_shell_command", command="echo x > GEMINI.md"),
    ], ApprovalMode.auto_edit)
    protected_edit, redirect, protected_shell = (r["error"] for r in responses)
    for refusal in (protected_edit, protected_shell):
        assert "protected path GEMINI.md" in refusal
        ways = refusal.split("The user can allow it with", 1)[1]
        assert "--yolo" in ways and "tools.allowed" not in ways, ways
    ways = redirect.split("The user can allow it with", 1)[1]
    assert "tools.shell.allowRedirection" in ways and "tools.allowed" not in ways, ways
    assert not (root / "GEMINI.md").exists() and not (root / "notes.txt").exists()
