"""The app on saved sessions: a resumed session shows the same tool rows; /restore, /undo and Esc Esc rewind."""

from __future__ import annotations

from pathlib import Path

from gemini_tui.app.screens.picker import ConfirmScreen, PickerScreen
from gemini_tui.app.widgets.answer import AnswerBlock
from gemini_tui.app.widgets.chat import ToolCallCard
from gemini_tui.core.ground.events import CallState
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes.scripted_model import ScriptedModel, call, text


def cards(screen) -> list[tuple[str, CallState, str]]:
    return [(c.call.name, c.call.state, type(c.result.return_display).__name__ if c.result else "")
            for c in screen.chat.query(ToolCallCard)]


def edit_model(root: Path) -> ScriptedModel:
    model = ScriptedModel()
    model.add(text("Listing."), call("list_directory", dir_path=str(root)))
    model.add(text("Writing."), call("write_file", file_path=str(root / "a.txt"), content="new\r\n"))
    model.add(text("Done."))
    return model


async def test_a_resumed_app_shows_the_same_tool_rows(root: Path, tmp_path: Path) -> None:
    (root / "a.txt").write_bytes(b"old\r\n")
    app = make_app(root, tmp_path, edit_model(root), approval_mode="yolo")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "list and write")
        await wait_for(pilot, lambda: len(screen.session.history) == 6 and not screen.session.is_running)
        await wait_for(pilot, lambda: not screen.busy and len(cards(screen)) == 2)
        first = cards(screen)
    assert first == [("list_directory", CallState.success, "DirectoryListing"),
                     ("write_file", CallState.success, "FileDiff")]

    again = make_app(root, tmp_path, ScriptedModel(), approval_mode="yolo")
    async with again.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: screen.ready)
        await type_and_send(pilot, "/resume")
        await wait_for(pilot, lambda: isinstance(again.screen, PickerScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(cards(screen)) == 2)
        assert cards(screen) == first
        assert screen.session.history[0].parts[0].text == "list and write"
        # the answers come back as answers (drawn as when they streamed), not as a command's output
        assert [a.text for a in screen.chat.query(AnswerBlock)] == ["Listing.", "Writing.", "Done."]
        assert not list(screen.chat.query(".command-output"))


async def test_restore_and_undo_in_the_app(root: Path, tmp_path: Path) -> None:
    (root / "a.txt").write_bytes(b"old\r\n")
    app = make_app(root, tmp_path, edit_model(root), approval_mode="yolo")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "list and write")
        await wait_for(pilot, lambda: len(screen.session.history) == 6 and not screen.session.is_running)
        await wait_for(pilot, lambda: not screen.busy and len(cards(screen)) == 2)
        assert (root / "a.txt").read_bytes() == b"new\r\n"
        await type_and_send(pilot, "/restore")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "put back" in app.screen.body and "a.txt" in app.screen.body
        await pilot.press("y")
        await wait_for(pilot, lambda: (root / "a.txt").read_bytes() == b"old\r\n")
        await wait_for(pilot, lambda: len(screen.session.history) == 0)

        screen.session.model.add(call("write_file", file_path=str(root / "a.txt"), content="again\n"))
        screen.session.model.add(text("Wrote."))
        await type_and_send(pilot, "write again")
        await wait_for(pilot, lambda: len(screen.session.history) == 4 and not screen.session.is_running)
        assert (root / "a.txt").read_bytes() == b"again\r\n"  # write_file keeps the CRLF
        await type_and_send(pilot, "/undo")
        await wait_for(pilot, lambda: (root / "a.txt").read_bytes() == b"old\r\n")


async def test_escape_twice_opens_the_rewind_picker(root: Path, tmp_path: Path) -> None:
    model = ScriptedModel()
    model.add(text("One."))
    model.add(text("Two."))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "first prompt")
        await wait_for(pilot, lambda: not screen.busy and len(screen.session.history) == 2)
        await type_and_send(pilot, "second prompt")
        await wait_for(pilot, lambda: not screen.busy and len(screen.session.history) == 4)
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert app.screen.items[0].startswith("2. second prompt")
        await pilot.press("enter")  # the newest prompt
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen) and not app.screen.filterable)
        await pilot.press("down", "enter")  # conversation only
        await wait_for(pilot, lambda: len(screen.session.history) == 2)
        assert screen.prompt.input.text == "second prompt"


async def test_the_resume_picker_shows_saved_prompts_cleaned(root: Path, tmp_path: Path) -> None:
    """A saved first prompt with OSC, CSI and C1 bytes and Rich markup: the picker shows it as plain, clean text."""
    import uuid

    from gemini_tui.core.ground.terminal_text import has_terminal_controls

    app = make_app(root, tmp_path, ScriptedModel(), approval_mode="yolo")
    hostile = "\x1b]52;c;aGk=\x07fix \x9b2J[bold red]the\x1b[31m parser\x85 [/] tests\x1b]0;t\x1b\\"
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: screen.ready)
        store = screen.session.saved.store  # type: ignore[attr-defined]
        writer = store.new_writer(str(uuid.uuid4()), root, "gemini-2.5-pro")
        writer.append([{"kind": "prompt", "text": hostile}])
        writer.close()
        await type_and_send(pilot, "/resume")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        from textual.widgets import OptionList

        options = picker.query_one(OptionList)
        shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert len(shown) == 1 and not has_terminal_controls(shown[0])
        assert "fix [bold red]the parser<85> [/] tests" in shown[0]  # markup shown as typed, not applied
    # the picker cleans what any caller gives it (/rewind lists prompts as typed), not only describe()'s lines
    assert not any(has_terminal_controls(item) for item in PickerScreen("t", [hostile, "plain"]).items)
