"""SVG snapshots of the main states, with a scripted model and a fixed root so the pictures are stable."""

from __future__ import annotations

import asyncio
import fcntl
import shutil
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from gemini_tui.app.main import GeminiApp
from gemini_tui.app.widgets import queue
from gemini_tui.app.widgets.confirm_bar import ConfirmBar
from gemini_tui.core.ground.display import ShellOutput
from gemini_tui.core.ground.events import (
    CallFinished,
    CallState,
    CallStateChanged,
    ToolCallInfo,
    ToolOutputChunk,
    TurnStarted,
)
from gemini_tui.core.ground.tool_result import ToolResult
from tests.app.app_driver import main_screen, wait_for
from tests.fakes.scripted_model import ScriptedModel, call, scripted_session, text, thought

SIZE = (110, 34)
ANSWER = """## Reading the project

The entry point is `cli/main.py`; it starts the app **lazily**:

```python
def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run_app(args)
```

1. Parse the flags.
2. Build the session.
"""


@pytest.fixture
def fixed_root(tmp_path: Path) -> Iterator[Path]:
    """A root at the same path on every run: the status line shows it. Held under a lock, so two test runs on one
    machine (two checkouts) do not empty each other's root mid-test."""
    root = Path("/tmp/gemini-tui-snapshots/project")
    with open("/tmp/gemini-tui-snapshots.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.rmtree(root.parent, ignore_errors=True)
        root.mkdir(parents=True)
        (root / "notes.md").write_text("".join(f"line {i}\n" for i in range(1, 21)))
        yield root
        shutil.rmtree(root.parent, ignore_errors=True)


def app_for(root: Path, tmp_path: Path, model: ScriptedModel) -> GeminiApp:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return GeminiApp(scripted_session(root, model, home), root)


def steps(*actions: Callable[[Pilot[Any]], Awaitable[None]]) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run(pilot: Pilot[Any]) -> None:
        main_screen(pilot).prompt.input.cursor_blink = False
        for action in actions:
            await action(pilot)
        # every cursor steady (a panel's filter field too): a blinking one is drawn or not by the clock
        for field in pilot.app.screen.query("Input, TextArea"):
            field.cursor_blink = False  # type: ignore[attr-defined]
        await pilot.pause(0.05)
    return run


def send(prompt: str, until: Callable[[Pilot[Any]], object] | None = None) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def action(pilot: Pilot[Any]) -> None:
        screen = main_screen(pilot)
        screen.prompt.input.load_text(prompt)
        await pilot.press("enter")
        await wait_for(pilot, (lambda: until(pilot)) if until else (lambda: not screen.busy))
    return action


def test_empty_screen(snap_compare: Any, fixed_root: Path, tmp_path: Path) -> None:
    assert snap_compare(app_for(fixed_root, tmp_path, ScriptedModel()), terminal_size=SIZE, run_before=steps())


def test_streamed_answer_with_thought(snap_compare: Any, fixed_root: Path, tmp_path: Path) -> None:
    model = ScriptedModel().add(thought("The user wants the entry point."), text(ANSWER, 9))
    assert snap_compare(app_for(fixed_root, tmp_path, model), terminal_size=SIZE,
                        run_before=steps(send("where does it start?")))


def test_mid_stream(snap_compare: Any, fixed_root: Path, tmp_path: Path) -> None:
    model = ScriptedModel().add(text(ANSWER[:120], 8), text("never"), wait=asyncio.Event())

    def streamed(pilot: Pilot[Any]) -> bool:
        answers = main_screen(pilot).chat.query(".answer")
        return bool(answers) and answers.last().text == ANSWER[:120]  # type: ignore[attr-defined]

    assert snap_compare(app_for(fixed_root, tmp_path, model), terminal_size=SIZE,
                        run_before=steps(send("explain", until=streamed)))


async def queue_with_running_calls(pilot: Pilot[Any]) -> None:
    """Events as the scheduler publishes them, with fixed times so the picture is stable."""
    bus = main_screen(pilot).session.bus
    bus.publish(TurnStarted("p1", "run the tests"))
    done = ToolCallInfo("c1", "glob", {"pattern": "**/*.py"}, CallState.success, "'**/*.py'", "FindFiles")
    bus.publish(CallStateChanged(done))
    bus.publish(CallFinished(done, ToolResult("Found 12 files", "Found 12 files"), 40))
    running = ToolCallInfo("c2", "run_shell_command", {"command": "pytest -q"}, CallState.executing,
                           "pytest -q", "Shell")
    bus.publish(CallStateChanged(running))
    bus.publish(ToolOutputChunk("c2", "tests/core/test_session.py ........ [ 40%]\n"))
    waiting = ToolCallInfo("c3", "read_file", {"path": "README.md"}, CallState.scheduled, "README.md", "ReadFile")
    bus.publish(CallStateChanged(waiting))
    failed = ToolCallInfo("c4", "read_file", {"path": "nope.md"}, CallState.error, "nope.md", "ReadFile")
    bus.publish(CallStateChanged(failed))
    bus.publish(CallFinished(failed, ToolResult.failure(*_not_found()), 3))
    calls = main_screen(pilot).queue
    # the live output too: it arrives apart from the states, and a busy machine may draw the states first
    await wait_for(pilot, lambda: len(calls.entries) == 4 and "[ 40%]" in calls.queue_text().plain)
    calls.refresh_lines()  # drawn now, not at the queue's (and the cards') next half-second tick
    for card in main_screen(pilot).chat.cards.values():
        card.refresh_header()
    await pilot.pause()


def _not_found() -> tuple[Any, str]:
    from gemini_tui.core.ground.tool_result import ToolErrorKind

    return ToolErrorKind.file_not_found, "File not found: nope.md"


def test_queue_with_running_calls(snap_compare: Any, fixed_root: Path, tmp_path: Path) -> None:
    assert snap_compare(app_for(fixed_root, tmp_path, ScriptedModel()), terminal_size=SIZE,
                        run_before=steps(queue_with_running_calls))


def test_inline_command_confirmation(snap_compare: Any, fixed_root: Path, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # listening at once: the queue's "waited N s for you" must not depend on the quiet spell's timing
    monkeypatch.setattr(ConfirmBar, "GRACE_PERIOD", 0.0)
    monkeypatch.setattr(queue, "WAITED_SHOWN_S", 3600.0)  # nor on how busy the machine is
    model = ScriptedModel().add(call("run_shell_command", command="git status --short"))
    assert snap_compare(app_for(fixed_root, tmp_path, model), terminal_size=SIZE,
                        run_before=steps(send("status?", until=lambda p: main_screen(p).confirm_bar.listening)))


def test_diff_review_modal(snap_compare: Any, fixed_root: Path, tmp_path: Path) -> None:
    model = ScriptedModel().add(call("replace", file_path=str(fixed_root / "notes.md"), old_string="line 7\n",
                                     new_string="line seven\nline 7.5\n"))
    assert snap_compare(app_for(fixed_root, tmp_path, model), terminal_size=SIZE,
                        run_before=steps(send("edit", until=lambda p: len(p.app.screen_stack) > 1)))


def test_expanded_card(snap_compare: Any, fixed_root: Path, tmp_path: Path) -> None:
    async def expand(pilot: Pilot[Any]) -> None:
        bus = main_screen(pilot).session.bus
        shell = ToolCallInfo("c1", "run_shell_command", {"command": "ls"}, CallState.success, "ls", "Shell")
        bus.publish(TurnStarted("p1", "list"))
        bus.publish(CallFinished(shell, ToolResult("a\nb", ShellOutput("ls", ".", "notes.md\nsrc\n", 0)), 12))
        # drawn, as a card is when a click or a key expands it (expanded before its header was mounted, its output
        # was mounted above the header)
        await wait_for(pilot, lambda: (cards := main_screen(pilot).chat.cards) and cards["c1"].header.is_attached)
        card = main_screen(pilot).chat.cards["c1"]
        await card.action_expand()

    assert snap_compare(app_for(fixed_root, tmp_path, ScriptedModel()), terminal_size=SIZE,
                        run_before=steps(expand))


def test_help(snap_compare: Any, fixed_root: Path, tmp_path: Path) -> None:
    assert snap_compare(app_for(fixed_root, tmp_path, ScriptedModel()), press=["f1"], terminal_size=SIZE,
                        run_before=steps())


def test_history_panel(snap_compare: Any, fixed_root: Path, tmp_path: Path) -> None:
    async def open_panel(pilot: Pilot[Any]) -> None:
        await pilot.press("ctrl+b")

    assert snap_compare(app_for(fixed_root, tmp_path, ScriptedModel()), terminal_size=(130, 34),
                        run_before=steps(queue_with_running_calls, open_panel))


def test_light_theme(snap_compare: Any, fixed_root: Path, tmp_path: Path) -> None:
    async def light(pilot: Pilot[Any]) -> None:
        pilot.app.theme = "textual-light"

    assert snap_compare(app_for(fixed_root, tmp_path, ScriptedModel()), terminal_size=SIZE,
                        run_before=steps(light, queue_with_running_calls))
