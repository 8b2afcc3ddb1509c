"""`make screenshots`: SVG screenshots of the real app (scripted model, demo project) into screenshots/."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from gemini_tui.app.main import GeminiApp
from gemini_tui.app.screens.main_screen import MainScreen
from gemini_tui.core.ground.events import (
    CallFinished,
    CallState,
    CallStateChanged,
    ToolCallInfo,
    ToolOutputChunk,
    TurnStarted,
)
from gemini_tui.core.ground.tool_result import ToolResult
from tests.fakes.scripted_model import ScriptedModel, call, scripted_session, text, thought

OUT = Path(__file__).resolve().parent
SIZE = (130, 38)
ANSWER = """## How the app starts

`cli/main.py` parses the flags, then starts the app **before** the session is built:

```python
def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return _interactive(lambda: _build_interactive(args.model, mode))
```

1. The first frame is drawn (about 0.2 s).
2. Settings, tools and the model load in a thread.
3. Anything typed meanwhile is sent once the session is ready.

| step | where |
|---|---|
| flags | `cli/main.py` |
| session | `cli/assemble.py` |
"""
MINIFIED = '{"routes": [' + ", ".join(f'{{"path": "/api/v1/item/{n}", "status": {200 + n % 3}, "cache": false}}'
                                      for n in range(90)) + "]}\n"
SOURCE = "".join(f"def handler_{n}(request):\n    return respond(request, status={200 + n})\n\n" for n in range(12))

Scene = Callable[[Pilot[Any]], Awaitable[None]]


def screen_of(pilot: Pilot[Any]) -> MainScreen:
    return next(s for s in pilot.app.screen_stack if isinstance(s, MainScreen))


async def until(pilot: Pilot[Any], predicate: Callable[[], object], timeout: float = 10) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise TimeoutError("the scene did not reach its state")
        await pilot.pause(0.05)


async def send(pilot: Pilot[Any], prompt: str) -> None:
    screen = screen_of(pilot)
    screen.prompt.input.load_text(prompt)
    await pilot.press("enter")


async def streaming(pilot: Pilot[Any]) -> None:
    await send(pilot, "How does gemini-tui start so fast?")
    screen = screen_of(pilot)
    await until(pilot, lambda: screen.chat.query(".answer") and "| flags" in screen.chat.query(".answer").last().text)
    answer = screen.chat.query(".answer").last()
    await until(pilot, lambda: answer._handle is None)  # type: ignore[attr-defined] - all of it drawn, not just received


async def running_queue(pilot: Pilot[Any]) -> None:
    bus = screen_of(pilot).session.bus
    await send(pilot, "Run the tests and read the failing file")
    await until(pilot, lambda: not screen_of(pilot).busy)
    bus.publish(TurnStarted("p2", "run the tests"))
    calls = [
        ToolCallInfo("c1", "glob", {}, CallState.success, "'tests/**/*.py'", "FindFiles"),
        ToolCallInfo("c2", "run_shell_command", {}, CallState.executing, "pytest -q tests/app", "Shell"),
        ToolCallInfo("c3", "search_file_content", {}, CallState.executing, "'def handler_' in src", "SearchText"),
        ToolCallInfo("c4", "read_file", {}, CallState.scheduled, "src/handlers.py", "ReadFile"),
        ToolCallInfo("c5", "replace", {}, CallState.awaiting_approval, "src/handlers.py: 200 => 201", "Edit"),
    ]
    for info in calls:
        bus.publish(CallStateChanged(info))
    bus.publish(CallFinished(calls[0], ToolResult("Found 14 files", "Found 14 files"), 38))
    bus.publish(ToolOutputChunk("c2", "tests/app/test_prompt.py ......                                 [ 62%]\n"))
    await until(pilot, lambda: len(screen_of(pilot).queue.entries) == 5)
    # the chat's running card shows its last output line at its next tick (every 0.5 s), the queue at once: the
    # scene is that line drawn in both
    await until(pilot, lambda: pilot.app.export_screenshot().count("test_prompt.py") == 2)


async def diff_modal(pilot: Pilot[Any]) -> None:
    await send(pilot, "Make handler_3 return 201")
    await until(pilot, lambda: not isinstance(pilot.app.screen, MainScreen))  # the review is over it
    await pilot.pause(0.5)


async def diff_side_by_side(pilot: Pilot[Any]) -> None:
    await diff_modal(pilot)
    await pilot.press("s")
    await pilot.pause(0.2)


async def diff_long_line(pilot: Pilot[Any]) -> None:
    await send(pilot, "Turn on caching for item 77")
    await until(pilot, lambda: not isinstance(pilot.app.screen, MainScreen))  # the review is over it
    await pilot.pause(0.5)
    await pilot.press("right_square_bracket")  # wrapped: from the removed line's change to the added one's
    await pilot.pause(0.2)


async def welcome(pilot: Pilot[Any]) -> None:
    await pilot.pause(0.3)


async def history_panel(pilot: Pilot[Any]) -> None:
    await send(pilot, "Find the handlers")
    await until(pilot, lambda: not screen_of(pilot).busy)
    await send(pilot, "And list the project")
    await until(pilot, lambda: not screen_of(pilot).busy)
    await pilot.press("ctrl+b")
    await pilot.pause(0.2)


async def history_details(pilot: Pilot[Any]) -> None:
    await history_panel(pilot)
    await pilot.press("enter", "enter")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "HistoryDetailsScreen")
    await pilot.pause(0.2)


async def help_screen(pilot: Pilot[Any]) -> None:
    await pilot.press("f1")
    await pilot.pause(0.3)


def history_model(root: Path) -> ScriptedModel:
    return (ScriptedModel().add(call("search_file_content", pattern="def handler_", path="src"),
                                call("glob", pattern="**/*.py")).add(text("Twelve handlers."))
            .add(call("list_directory", path=str(root))).add(text("Listed.")))


def scenes(root: Path) -> list[tuple[str, ScriptedModel, Scene]]:
    handlers = str(root / "src" / "handlers.py")
    return [
        ("streaming", ScriptedModel().add(thought("They want the startup path."), text(ANSWER, 12), delay_s=0.01),
         streaming),
        ("queue", ScriptedModel().add(text("Running them now.")), running_queue),
        ("diff-unified", ScriptedModel().add(call("replace", file_path=handlers,
                                                   old_string="status=203)", new_string="status=201)  # created")),
         diff_modal),
        ("diff-side-by-side", ScriptedModel().add(call("replace", file_path=handlers,
                                                        old_string="status=203)",
                                                        new_string="status=201)  # created")),
         diff_side_by_side),
        ("diff-long-line", ScriptedModel().add(call(
            "replace", file_path=str(root / "routes.min.json"),
            old_string='{"path": "/api/v1/item/77", "status": 202, "cache": false}',
            new_string='{"path": "/api/v1/item/77", "status": 202, "cache": true}')), diff_long_line),
        ("welcome", ScriptedModel(model_name="offline", is_offline=True), welcome),
        ("history", history_model(root), history_panel),
        ("history-details", history_model(root), history_details),
        ("help", ScriptedModel(), help_screen),
    ]


def demo_project(base: Path) -> Path:
    root = base / "demo-project"
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "src" / "handlers.py").write_text(SOURCE)
    (root / "README.md").write_text("# demo project\n")
    (root / "routes.min.json").write_text(MINIFIED)
    (root / "tests" / "test_handlers.py").write_text("def test_ok():\n    assert True\n")
    return root


async def shoot(name: str, root: Path, home: Path, model: ScriptedModel, scene: Scene) -> Path:
    app = GeminiApp(scripted_session(root, model, home, approval_mode="default"), root)
    async with app.run_test(size=SIZE) as pilot:
        screen_of(pilot).prompt.input.cursor_blink = False
        await scene(pilot)
        await pilot.pause(0.1)
        path = OUT / f"{name}.svg"
        path.write_text(app.export_screenshot(title=f"gemini-tui: {name}"), encoding="utf-8")
    return path


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for name, model, scene in scenes(demo_project(base)):
            home = base / f"home-{name}"
            home.mkdir()
            root = base / "demo-project"
            path = asyncio.run(shoot(name, root, home, model, scene))
            print(f"wrote {path.relative_to(OUT.parent)}")
            # no scene approves anything: the demo file must be as it was
            assert (root / "src" / "handlers.py").read_text() == SOURCE
            assert (root / "routes.min.json").read_text() == MINIFIED


if __name__ == "__main__":
    main()
