"""Nothing shown can drive the terminal: hostile bytes in every field of every display type (through the
display registry, as the app shows results), in model text, thoughts, notices, a command's live output, the
confirm bar and the diff review, and not one control byte reaches the rendered segments."""

from __future__ import annotations

import dataclasses
import random
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.widget import Widget

from gemini_tui.app.displays.registry import _factories, _load_builtins, widget_for
from gemini_tui.core.ground import display as display_types
from gemini_tui.core.ground.display import FileDiff
from gemini_tui.core.ground.terminal_text import has_terminal_controls
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes.scripted_model import ScriptedModel, call, text, thought

HOSTILE = ["\x1b]0;pwned\x07", "\x1b]52;c;cHduZWQ=\x07", "\x1b[2J\x1b[H", "\x1b[?1049h", "\x9b31m", "\x9d0;x\x9c",
           "\x1bP1$r\x1b\\", "\x1b_G\x1b\\", "\x1bc", "\x07", "\x08\x08", "\x00", "\x7f", "\x85", "\x1b",
           "\x1b[31mred\x1b[0m", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "a\rb", "\x1b[12"]


def hostile(rng: random.Random) -> str:
    if rng.random() < 0.4:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))).decode("latin-1")
    return "x " + "".join(rng.choice(HOSTILE) + rng.choice(["", "y", "\n", " é "]) for _ in range(4))


def build(kind: Any, rng: random.Random) -> Any:
    """A value of `kind` (a display dataclass, or a field's type) with a hostile string wherever text goes."""
    origin = typing.get_origin(kind)
    if kind is str:
        return hostile(rng)
    if kind in (int, float):
        return 3
    if kind is bool:
        return rng.random() < 0.5
    if origin in (typing.Union, types.UnionType):
        options = [k for k in typing.get_args(kind) if k is not type(None)]
        return build(options[0], rng)
    if origin is tuple:
        item = typing.get_args(kind)[0]
        return tuple(build(item, rng) for _ in range(3))
    if kind is FileDiff:
        return FileDiff.between(hostile(rng), hostile(rng) + "\nsame\n", hostile(rng) + "\nsame\n",
                                display_name=hostile(rng))
    if dataclasses.is_dataclass(kind):
        hints = typing.get_type_hints(kind, vars(display_types))
        return kind(**{f.name: build(hints[f.name], rng) for f in dataclasses.fields(kind) if f.init})
    raise AssertionError(f"no builder for {kind}")


def display_samples() -> list[Any]:
    _load_builtins()
    rng = random.Random(10)
    samples: list[Any] = []
    for kind in _factories:
        if kind is object:
            continue
        if kind is str:
            samples += [hostile(rng) for _ in range(15)]
            continue
        if kind.__module__ != display_types.__name__:
            continue
        samples += [build(kind, rng) for _ in range(15)]
    samples += [{"weird": hostile(rng)}, [hostile(rng)]]  # the fallback for types nobody registered
    return samples


def rendered_text(root: Widget) -> str:
    parts = []
    for widget in [root, *root.walk_children()]:
        if not widget.display or not widget.size.area:
            continue
        for strip in widget.render_lines(Region(0, 0, widget.size.width, widget.size.height)):
            parts.extend(segment.text for segment in strip if not segment.control)
    return "".join(parts)


def assert_clean(text: str, where: str) -> None:
    bad = sorted({f"{ord(c):#04x}" for c in text if has_terminal_controls(c)})
    assert not bad, f"{where}: control bytes {bad} reached the screen"


class Shelf(App[None]):
    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="shelf")


async def test_every_display_type_through_the_registry() -> None:
    samples = display_samples()
    assert len(samples) >= 150  # every type, each many times over with different hostile bytes in every field
    assert {type(s).__name__ for s in samples} >= {"FileDiff", "ShellOutput", "McpResult", "FileContent",
                                                     "WebPage", "SearchMatches", "DirectoryListing", "str"}
    app = Shelf()
    async with app.run_test(size=(100, 60)) as pilot:
        shelf = app.query_one("#shelf")
        for sample in samples:
            widget = widget_for(sample)
            await shelf.mount(widget)
            await pilot.pause()
            assert_clean(rendered_text(widget), type(sample).__name__)
            await widget.remove()


@pytest.mark.parametrize("seed", range(3))
async def test_model_text_thoughts_notices_and_command_output(seed: int, root: Path, tmp_path: Path) -> None:
    rng = random.Random(seed)
    pieces = [hostile(rng) for _ in range(6)]
    (root / "f.txt").write_text("".join(pieces[:2]))
    model = (ScriptedModel()
             .add(thought(pieces[0]), text(pieces[1] + "\n\n" + pieces[2], 3), call("read_file", path="f.txt"))
             .add(call("run_shell_command", command="printf '\\033]0;pwned\\007\\033[2Jdone\\n'"))
             .add(text(pieces[3])))
    app = make_app(root, tmp_path, model, approval_mode="yolo")
    async with app.run_test(size=(110, 40)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, pieces[4])
        await wait_for(pilot, lambda: not screen.status.busy and len(model.replies) == 0, timeout=15)
        await pilot.pause(0.2)
        for card in screen.query(".call-card, .tool-card, Collapsible"):
            card.expand = True if hasattr(card, "expand") else None  # type: ignore[attr-defined]
        await screen.chat.add_notice(pieces[5], "warning")
        await pilot.pause(0.1)
        assert_clean(rendered_text(screen), f"main screen, seed {seed}")


async def test_confirm_bar_and_diff_review(root: Path, tmp_path: Path) -> None:
    from gemini_tui.app.screens.diff_review import DiffReviewScreen

    target = root / "\x1b]0;evil\x07name.txt"
    target.write_text("safe line\n\x1b]0;pwned\x07title\n\x1b[2Jclear\n")
    model = (ScriptedModel()
             .add(call("run_shell_command", command="echo '\x1b]0;pwned\x07' \x1b[2J"))
             .add(call("replace", file_path=str(target), old_string="safe line", new_string="\x1b[31mnew\x07 line")))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "go")
        await wait_for(pilot, lambda: screen.confirm_bar.request is not None)
        await pilot.pause(0.1)
        assert "pwned" not in str(screen.confirm_bar.body.render())
        assert_clean(rendered_text(screen.confirm_bar), "confirm bar")
        await pilot.pause(0.6)  # past the grace period that ignores typed-ahead keys
        await pilot.press("y")  # the echo runs; then the model's edit opens the review
        await wait_for(pilot, lambda: isinstance(app.screen, DiffReviewScreen), timeout=10)
        await pilot.pause(0.2)
        assert_clean(rendered_text(app.screen), "diff review")
        await pilot.pause(0.6)  # past the review's grace period
        await pilot.press("v")  # side by side
        await pilot.pause(0.2)
        assert_clean(rendered_text(app.screen), "diff review, side by side")
        await pilot.press("e")  # the in-place editor would draw them raw: it is not opened for such content
        await pilot.pause(0.2)
        assert app.screen.mode == "review"  # type: ignore[attr-defined]
        assert_clean(rendered_text(app.screen), "diff review, edit")


async def test_a_sequence_split_between_streamed_chunks_shows_none_of_it(root: Path, tmp_path: Path,
                                                                          gemini_server: Any) -> None:
    """Through google-genai and the fake Gemini server: each piece is its own chunk, so each sequence arrives in
    two deltas; the screen shows the text around them and nothing of them, and the history keeps them raw."""
    import os

    from gemini_tui.app.main import GeminiApp
    from gemini_tui.app.widgets.answer import AnswerBlock, ThoughtBlock
    from gemini_tui.cli.assemble import build_session
    from tests.fakes.gemini_server import reply
    from tests.fakes.gemini_server import text as part
    from tests.fakes.gemini_server import thought as thought_part

    answer = ["Hello \x1b]0;P", "WNED-TITLE\x07world \x1b[3", "1mred\x9b3", "2m \x1b[?10", "00hclick ",
              "\x1b]8;;http://evil/\x1b", "\\link\x1b]8;;\x1b\\ end\x1b"]
    gemini_server.script(reply(thought_part("think \x1b]2;PW"), thought_part("NED\x07hard"), *map(part, answer)),
                         reply(part("again")))
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("GEMINI_", "GOOGLE_"))},
           "GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": gemini_server.base_url}
    home = tmp_path / "home"
    home.mkdir()
    app = GeminiApp(build_session(root, env=env, home=home, extensions=["none"]), root)
    async with app.run_test(size=(110, 30)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "hi")
        await wait_for(pilot, lambda: len(gemini_server.requests) == 1 and not screen.status.busy, timeout=15)
        await pilot.pause(0.3)
        [block] = screen.chat.query(AnswerBlock)
        [thoughts] = screen.chat.query(ThoughtBlock)
        assert block.source == "Hello world red click link end␛"  # the lone ESC at the very end: shown, not lost
        assert thoughts.body.source == "think hard"
        shown = rendered_text(screen.chat)
        assert "Hello world red click link end" in shown
        for fragment in ("WNED", "TITLE", "1m", "2m", "00h", "http", "evil"):
            assert fragment not in shown
        assert_clean(shown, "split sequences")
        await type_and_send(pilot, "more")  # the next request carries the answer as the model wrote it
        await wait_for(pilot, lambda: len(gemini_server.requests) == 2 and not screen.status.busy, timeout=15)
    sent = [p.get("text", "") for c in gemini_server.requests[1].contents if c["role"] == "model" for p in c["parts"]
            if not p.get("thought")]
    assert "".join(sent) == "".join(answer)
