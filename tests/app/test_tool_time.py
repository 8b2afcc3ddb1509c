"""Durations are the tool's own time everywhere: a call approved after a long wait, or rejected after one, shows
the time it ran (none, when it never ran) in /stats, the `-o json` stats, the history panel and its details,
and the /stats summary lines are drawn one per line."""

from __future__ import annotations

import random
import re
from pathlib import Path
from types import SimpleNamespace

from gemini_tui.app.command_registry import CommandContext, ShowMarkdown
from gemini_tui.app.screens.diff_review import DiffReviewScreen
from gemini_tui.app.screens.history_details import HistoryDetailsScreen
from gemini_tui.app.slash_commands import COMMANDS
from gemini_tui.app.widgets.answer import markdown_parser
from gemini_tui.app.widgets.confirm_bar import ConfirmBar
from gemini_tui.app.widgets.history_panel import HistoryPanel
from gemini_tui.cli.headless import stats_json
from gemini_tui.core.ground.stats import CallDecision, SessionStats
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.app.test_slash_commands import outputs, run
from tests.fakes.scripted_model import ScriptedModel, call, text

WAIT_S = 1.5  # the user takes their time; every tool here runs in well under it


def seconds_of(shown: str) -> float:
    """`12ms`, `1.5s`, `12s`, `1m02s` -> seconds."""
    if match := re.fullmatch(r"(\d+)m(\d+)s", shown):
        return int(match[1]) * 60 + int(match[2])
    return float(shown[:-2]) / 1000 if shown.endswith("ms") else float(shown[:-1])


async def test_a_call_approved_or_rejected_after_a_long_wait_counts_only_its_own_time(root: Path,
                                                                                     tmp_path: Path) -> None:
    (root / "a.txt").write_text("old\n")
    model = (ScriptedModel().add(call("run_shell_command", command="echo hi")).add(text("ran"))
             .add(call("write_file", file_path=str(root / "a.txt"), content="new\n")).add(text("not written")))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = main_screen(pilot)
        bar = screen.query_one(ConfirmBar)
        await type_and_send(pilot, "run")
        await wait_for(pilot, lambda: bar.request is not None)
        await pilot.pause(WAIT_S)
        await pilot.press("y")  # approved after the wait
        await wait_for(pilot, lambda: not screen.busy)
        await type_and_send(pilot, "write")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffReviewScreen))
        await pilot.pause(WAIT_S)
        await pilot.press("r", "enter")  # rejected after the wait: it never ran
        await wait_for(pilot, lambda: not screen.busy)
        assert (root / "a.txt").read_text() == "old\n"
        shell, edit = screen.calls.records()
        assert shell.waited_s >= WAIT_S and edit.waited_s >= WAIT_S

        # the records (chat card, queue): the tool's time, the wait apart
        assert shell.duration_ms is not None and shell.duration_ms < WAIT_S * 1000 / 2
        assert edit.duration_ms == 0

        # /stats: the tool time column
        screen = await run(pilot, "/stats")
        table = dict(re.findall(r"\| (\w+) \| \d+ \| \d+ \| \d+ \| ([\d.]+)s \|", outputs(screen)[-1]))
        assert float(table["run_shell_command"]) < WAIT_S / 2 and float(table["write_file"]) == 0.0

        # -o json: the same figures (headless prints stats_json of the session's stats)
        by_name = stats_json(screen.session.stats)["tools"]["byName"]
        assert by_name["run_shell_command"]["durationMs"] == shell.duration_ms
        assert by_name["write_file"]["durationMs"] == 0
        assert stats_json(screen.session.stats)["tools"]["totalDurationMs"] == shell.duration_ms

        # the history panel's rows and a call's details
        await pilot.press("ctrl+b")
        panel = screen.query_one(HistoryPanel)
        await wait_for(pilot, lambda: panel.option_list.option_count == 2)
        rows = [str(panel.option_list.get_option_at_index(i).prompt) for i in range(2)]
        edit_row, shell_row = rows  # newest first
        assert seconds_of(shell_row.split()[-1]) < WAIT_S / 2
        assert edit_row.split()[-1] == "0ms"
        await pilot.press("enter")  # the details of the first row: the rejected edit
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryDetailsScreen))
        title = str(app.screen.query_one("#details-title").render())
        assert title.split()[-1] == "0ms", title


def paragraphs(markdown: str) -> list[str]:
    tokens = markdown_parser().parse(markdown)
    return [tokens[i + 1].content for i, token in enumerate(tokens) if token.type == "paragraph_open"]


async def test_generated_stats_draw_decisions_lines_and_compression_on_lines_of_their_own() -> None:
    rng = random.Random(2)
    for _ in range(60):
        stats = SessionStats()
        for name in rng.sample(["read_file", "replace", "run_shell_command", "glob"], rng.randint(0, 4)):
            for _ in range(rng.randint(1, 4)):
                stats.record_call(name, rng.random() < 0.8, rng.randint(0, 20000),
                                  rng.choice([*CallDecision, None]))
        stats.lines_added, stats.lines_removed = rng.randint(0, 500), rng.randint(0, 500)
        if rng.random() < 0.5:
            stats.compressions, stats.tokens_saved = rng.randint(1, 5), rng.randint(1, 90000)
        result = await COMMANDS["stats"].handler(SimpleNamespace(stats=stats), "",  # type: ignore[arg-type]
                                                 CommandContext({}))
        assert isinstance(result, ShowMarkdown)
        found = paragraphs(result.text)
        decisions = [p for p in found if p.startswith("Decisions (")]
        assert len(decisions) == 1 and "\n" not in decisions[0] and "Lines" not in decisions[0]
        assert f"Lines: +{stats.lines_added} −{stats.lines_removed}" in found
        compressed = [p for p in found if p.startswith("Context compressed")]
        assert len(compressed) == (1 if stats.compressions else 0)
        tokens = markdown_parser().parse(result.text)
        rows = sum(token.type == "tr_open" for token in tokens)
        assert rows == 1 + len(stats.models) + (1 + len(stats.tools) if stats.tools else 0)
