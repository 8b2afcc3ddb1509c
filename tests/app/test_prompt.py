"""The prompt: Enter sends, Ctrl+J adds a line, Up/Down history, @path and /command completion, @ and ! forms."""

from __future__ import annotations

from pathlib import Path

from gemini_tui.app.widgets.confirm_bar import ConfirmBar
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.app.test_confirmations import GRACE
from tests.fakes.scripted_model import ScriptedModel, text


async def test_newline_history_and_enter(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, ScriptedModel().add(text("a")).add(text("b")))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        prompt = screen.prompt.input
        await pilot.press(*"one", "ctrl+j", *"two")
        assert prompt.text == "one\ntwo"
        await pilot.press("enter")
        await wait_for(pilot, lambda: not screen.busy and len(screen.session.history) == 2)
        assert prompt.text == ""
        await type_and_send(pilot, "three")
        await wait_for(pilot, lambda: not screen.busy and len(screen.session.history) == 4)
        await pilot.press(*"draft")
        await pilot.press("up")
        assert prompt.text == "three"
        await pilot.press("up")
        assert prompt.text == "one\ntwo"
        await pilot.press("down")  # the cursor is on the last line: forward through the history
        assert prompt.text == "three"
        await pilot.press("down")
        assert prompt.text == "draft"


async def test_slash_completion(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        await pilot.press(*"/me")
        assert screen.prompt.completing
        assert [c.label.split()[0] for c in screen.prompt.candidates] == ["/memory"]
        await pilot.press("tab")
        assert screen.prompt.input.text == "/memory "
        assert not screen.prompt.completing


async def test_path_completion_walks_into_folders(root: Path, tmp_path: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("print(1)\n")
    (root / "setup.cfg").write_text("")
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        await pilot.press(*"look at @s")
        assert [c.label for c in screen.prompt.candidates] == ["@src/", "@setup.cfg"]
        await pilot.press("enter")  # accepts the highlighted completion, does not send
        assert screen.prompt.input.text == "look at @src/"
        assert [c.label for c in screen.prompt.candidates] == ["@src/main.py"]
        await pilot.press("tab")
        assert screen.prompt.input.text == "look at @src/main.py "
        await pilot.press("escape")
        assert not screen.busy


async def test_bang_runs_a_command_after_confirmation(root: Path, tmp_path: Path) -> None:
    model = ScriptedModel()
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(110, 32)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "!echo bang > bang.txt")
        bar = screen.query_one(ConfirmBar)
        await wait_for(pilot, lambda: bar.request is not None)
        await pilot.pause(GRACE)
        await pilot.press("y")
        await wait_for(pilot, lambda: not screen.busy)
        assert len(screen.chat.cards) == 1
    assert (root / "bang.txt").read_text() == "bang\n"
    assert model.requests == []  # the model was not asked


async def test_bang_output_reaches_the_model_with_the_next_prompt(root: Path, tmp_path: Path) -> None:
    model = ScriptedModel().add(text("I see it."))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(110, 32)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "!echo marker-42")
        bar = screen.query_one(ConfirmBar)
        await wait_for(pilot, lambda: bar.request is not None)
        await pilot.pause(GRACE)
        await pilot.press("y")
        await wait_for(pilot, lambda: not screen.busy)
        assert model.requests == []
        [card] = screen.chat.cards.values()
        await wait_for(pilot, lambda: card.expanded)  # the user typed the command to see what it prints
        await type_and_send(pilot, "what did it print?")
        await wait_for(pilot, lambda: not screen.busy and model.requests)
    contents = model.requests[0].contents
    assert [c.role for c in contents] == ["user"]
    sent = "".join(getattr(p, "text", "") for p in contents[0].parts)
    assert "echo marker-42" in sent and "marker-42\n" in sent
    assert sent.rstrip().endswith("what did it print?")


async def test_enter_sends_a_finished_command_even_before_the_list_caught_up(root: Path, tmp_path: Path) -> None:
    # a fast typist (or a busy machine): Enter arrives before the last keystroke's Changed message was handled
    from textual import events

    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        prompt = screen.prompt.input
        await pilot.press(*"/stat")
        await pilot.pause()
        assert screen.prompt.completing
        prompt.insert("s")  # its Changed message is still queued when the Enter key is handled
        await prompt._on_key(events.Key("enter", None))
        assert prompt.sent[-1:] == ["/stats"]
