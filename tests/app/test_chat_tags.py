"""`/chat save ../../x`: the name is a bookmark's name, said and listed exactly as typed, and no file appears
outside gemini-tui's own directory."""

from __future__ import annotations

from pathlib import Path

from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes.scripted_model import ScriptedModel, text


async def test_a_tag_that_looks_like_a_path_is_just_a_name(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, ScriptedModel().add(text("hi")))
    before = {p for p in tmp_path.rglob("*") if ".gemini" not in p.parts}
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "hello")
        await wait_for(pilot, lambda: not screen.busy)
        await type_and_send(pilot, "/chat save ../../x")
        await pilot.pause(0.2)
        notices = [str(w.render()) for w in screen.chat.query(".notice")]
        assert any("'../../x'" in n for n in notices), notices
        await type_and_send(pilot, "/chat list")
        await pilot.pause(0.2)
        listing = str(screen.chat.query(".command-output").last().source)
        assert "`../../x`" in listing
    after = {p for p in tmp_path.rglob("*") if ".gemini" not in p.parts}
    assert {p for p in after - before if p.name == "x" or "x" in p.stem.split("-")} == set()
    assert not (tmp_path.parent / "x").exists() and not (root.parent.parent / "x").exists()


async def test_chat_list_shows_a_hostile_tag_cleaned(root: Path, tmp_path: Path) -> None:
    """A tag saved with OSC, CSI and C1 bytes is listed without them (the listing is a display like the rest)."""
    from gemini_tui.core.ground.terminal_text import has_terminal_controls

    app = make_app(root, tmp_path, ScriptedModel().add(text("hi")))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "hello")
        await wait_for(pilot, lambda: not screen.busy)
        screen.session.chats.save("work\x1b]0;owned\x07\x9b2Jtag\x85")
        await type_and_send(pilot, "/chat list")
        await pilot.pause(0.2)
        listing = str(screen.chat.query(".command-output").last().source)
        assert "work" in listing and "tag" in listing and not has_terminal_controls(listing)
