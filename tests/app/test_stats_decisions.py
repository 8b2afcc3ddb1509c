"""/stats in the app shows one decision per decided model call: generated turns answered with the app's own keys
(the diff review's y / a / r / e, the confirm bar's y / a / Esc, Ctrl+C to cancel a turn while a call is asked),
with the user's own `!command`, `/memory add` and `@path` in between; the command's output must match the
oracle (tests/core/decision_mix.py)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import TextArea

from gemini_tui.app.screens.diff_review import DiffReviewScreen
from gemini_tui.app.widgets.confirm_bar import ConfirmBar
from gemini_tui.core.approvals.policy import ApprovalMode
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.app.test_confirmations import GRACE
from tests.app.test_slash_commands import outputs, run
from tests.core.decision_mix import EXCLUDED, Planned, Turn, by_key, decide, generate, key_of
from tests.fakes.scripted_model import ScriptedModel, call, text

EDIT_KEYS = {"once": ("y",), "always": ("a",), "reject": ("r", "enter"), "abort": ("ctrl+c",)}
BAR_KEYS = {"once": ("y",), "always": ("a",), "reject": ("escape",), "abort": ("ctrl+c",)}


def stats_of(output: str) -> tuple[int, dict[str, int]]:
    calls = int(re.search(r"Tool calls: \*\*(\d+)\*\*", output).group(1))  # type: ignore[union-attr]
    line = next(line for line in output.splitlines() if line.startswith("Decisions"))
    return calls, {name: int(n) for name, n in re.findall(r"(\w+): (\d+)", line.split(":", 1)[1])}


async def answer(pilot: Pilot[Any], planned: dict[int, Planned]) -> None:
    """Answers what is asked now, with the planned answer's keys."""
    screen = main_screen(pilot)
    await pilot.pause(GRACE)
    review = pilot.app.screen
    if isinstance(review, DiffReviewScreen):
        key = key_of({"path": review.details.file_path})
        assert key is not None
        if planned[key].answer == "modify":
            await pilot.press("e")
            editor = review.query_one(TextArea)
            await wait_for(pilot, lambda: editor.display and editor.text)
            editor.load_text(f"changed K{key}X\n")
            await pilot.press("ctrl+s")
        else:
            await pilot.press(*EDIT_KEYS[planned[key].answer])
        return
    request = screen.query_one(ConfirmBar).request
    assert request is not None
    if request.call.requested_by != "model":
        await pilot.press("y")
        return
    key = key_of(request.call.args)
    assert key is not None
    await pilot.press(*BAR_KEYS[planned[key].answer])


async def play(pilot: Pilot[Any], model: ScriptedModel, plan: list[Turn], root: Path) -> None:
    screen = main_screen(pilot)
    bar = screen.query_one(ConfirmBar)
    planned = by_key(plan)
    for n, turn in enumerate(plan):
        screen.session.approval_mode = ApprovalMode(turn.mode)
        for run_kind in turn.user_runs:
            if run_kind == "shell":
                await type_and_send(pilot, f"!echo user-{n}")
                await wait_for(pilot, lambda: bar.request is not None)
                await answer(pilot, planned)
                await wait_for(pilot, lambda: not screen.busy)
            elif run_kind == "memory":
                await run(pilot, f"/memory add fact {n}")
        model.add(*(call(name, **args) for name, args in (c.call(root) for c in turn.calls)))
        if not turn.cancelled:
            model.add(text("Done."))
        expected_requests = len(model.requests) + (1 if turn.cancelled else 2)

        def done(expected_requests: int = expected_requests) -> bool:
            return len(model.requests) >= expected_requests and not screen.busy

        await type_and_send(pilot, f"turn {n} @present.txt" if "mention" in turn.user_runs else f"turn {n}")
        while not done():
            await wait_for(pilot, lambda: done() or bar.request is not None
                           or isinstance(pilot.app.screen, DiffReviewScreen), timeout=10)
            if not done():
                await answer(pilot, planned)
                await pilot.pause(0.05)
        assert not model.replies, f"turn {n} did not ask the model as scripted"


@pytest.mark.parametrize("seed", [25, 30])  # between them: yes, always, no, modify, Ctrl+C
async def test_stats_counts_one_decision_per_decided_call(seed: int, root: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini/settings.json").write_text(json.dumps({"tools": {"exclude": [EXCLUDED]}}))
    (root / "present.txt").write_text("".join(f"line {i}\n" for i in range(50)))
    plan = generate(random.Random(seed), turns=6, max_calls=4, long_calls=False)
    plan[0].user_runs = ["shell", "mention", "memory"]  # each of the user's own calls at least once
    expected = decide(plan)
    model = ScriptedModel()
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(120, 36)) as pilot:
        await play(pilot, model, plan, root)
        screen = await run(pilot, "/stats")
        calls, decisions = stats_of(outputs(screen)[-1])
    assert decisions == expected
    assert calls == len(by_key(plan))  # the model's calls; the user's own are not counted
    assert sum(decisions.values()) == sum(1 for c in by_key(plan).values() if c.expected is not None)
