"""`gemini-tui -p` counts decisions as /stats does: generated model turns (reads, edits, commands, unknown tools,
bad arguments, a command a rule forbids) under each approval mode, with an `@path` mention in the prompt; the
`json` totals must equal the oracle's (tests/core/decision_mix.py: headless asks nobody, so what it would have
to ask is refused with no decision) and `stream-json` must count the model's calls only."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.core.decision_mix import EXCLUDED, by_key, decide, generate, key_of
from tests.e2e.test_headless import run_cli
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text


def script(server: FakeGeminiServer, root: Path, mode: str, seed: int) -> dict[int, str | None]:
    plan = generate(random.Random(seed), turns=8, modes=(mode,), long_calls=False, user_runs=False)
    decide(plan, interactive=False)
    server.script(*(reply(*(call(*c.call(root)) for c in turn.calls)) for turn in plan), reply(text("Done.")))
    return {key: c.expected for key, c in by_key(plan).items()}


@pytest.mark.parametrize(("mode", "output", "seed"), [
    ("default", "json", 11), ("auto_edit", "json", 12), ("yolo", "json", 13), ("plan", "json", 14),
    ("default", "stream-json", 15), ("yolo", "stream-json", 16)])
def test_headless_totals_match_the_decided_calls(gemini_server: FakeGeminiServer, root: Path, home: Path,
                                                 mode: str, output: str, seed: int) -> None:
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini/settings.json").write_text(json.dumps({"tools": {"exclude": [EXCLUDED]}}))
    (root / "present.txt").write_text("".join(f"line {i}\n" for i in range(50)))
    expected = script(gemini_server, root, mode, seed)
    out = run_cli(["-p", "look at @present.txt", "-o", output, "--approval-mode", mode], root, home, gemini_server)
    assert out.returncode == 0, out.stderr
    totals = {"accept": 0, "reject": 0, "modify": 0, "auto_accept": 0}
    for decision in expected.values():
        if decision is not None:
            totals[decision] += 1
    if output == "json":
        tools = json.loads(out.stdout)["stats"]["tools"]
        assert tools["totalDecisions"] == totals
        assert tools["totalCalls"] == len(expected)  # the `@path` read is the user's: not counted
        assert sum(sum(t["decisions"].values()) for t in tools["byName"].values()) == sum(totals.values())
        return
    events = [json.loads(line) for line in out.stdout.splitlines()]
    uses = [e for e in events if e["type"] == "tool_use"]
    model_uses = [e for e in uses if key_of(e["parameters"]) in expected]
    assert len(model_uses) == len(expected)
    assert events[-1]["stats"]["tool_calls"] == len(expected)
    # every call the oracle says was decided ran or failed after its decision; the rest were refused unasked
    results = {e["tool_id"]: e for e in events if e["type"] == "tool_result"}
    for use in model_uses:
        refused = expected[key_of(use["parameters"])] is None  # type: ignore[index]
        if refused:
            assert results[use["tool_id"]]["status"] == "error"
