"""`@folder` shows its call: the read runs through the scheduler, so a row appears in the queue and a card in
the chat while it runs (with its elapsed time), not minutes of "working…" with nothing to see."""

from __future__ import annotations

from pathlib import Path

from gemini_tui.app.widgets.chat import ToolCallCard
from gemini_tui.core.events import CallState
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes.scripted_model import ScriptedModel, text


async def test_a_folder_mention_shows_its_read_as_a_call(root: Path, tmp_path: Path) -> None:
    folder = root / "docs"
    folder.mkdir()
    for i in range(300):
        (folder / f"page{i}.md").write_text(f"# page {i}\n" + "text " * 200 + "\n")
    app = make_app(root, tmp_path, ScriptedModel().add(text("Read them.")))
    async with app.run_test(size=(120, 36)) as pilot:
        screen = main_screen(pilot)
        seen_in_queue: list[str] = []

        def look() -> bool:
            seen_in_queue.extend(e.call.name for e in screen.queue.entries.values())
            return bool(screen.chat.query(ToolCallCard))

        await type_and_send(pilot, "summarize @docs")
        await wait_for(pilot, look, timeout=20)
        card = screen.chat.query(ToolCallCard).first()
        assert card.call.name == "read_many_files" and card.call.requested_by == "mention"
        assert "read_many_files" in seen_in_queue
        await wait_for(pilot, lambda: not screen.busy, timeout=30)
        assert card.call.state is CallState.success
