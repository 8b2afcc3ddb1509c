"""`@folder` shows its call: the read runs through the scheduler, so a row appears in the queue and a card in
the chat while it runs (with its elapsed time), not minutes of "working…" with nothing to see."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from gemini_tui.app.widgets.chat import ToolCallCard
from gemini_tui.core.ground.events import CallState
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


async def test_a_big_folder_shows_a_growing_count_on_its_row_and_card(root: Path, tmp_path: Path) -> None:
    """3,400 small files: every text the queue draws is kept (its real `show_lines`), so the test sees each count the
    row showed, however fast this machine reads; the card's header shows the same live line."""
    folder = root / "big"
    for d in range(34):
        sub = folder / f"part{d:02}"
        sub.mkdir(parents=True)
        for f in range(100):
            (sub / f"n{f:03}.md").write_text(f"note {d}-{f}\n" + "word " * 30 + "\n")
    app = make_app(root, tmp_path, ScriptedModel().add(text("Read them.")))
    async with app.run_test(size=(120, 36)) as pilot:
        screen = main_screen(pilot)
        drawn: list[str] = []
        cards: list[str] = []
        original = screen.queue.show_lines

        def spy(content: Any = "", *args: Any, **kwargs: Any) -> None:
            drawn.append(str(content))
            for card in screen.chat.query(ToolCallCard):
                if card.call.state is CallState.executing:
                    cards.append(card.header_text().plain)
            original(content, *args, **kwargs)

        screen.queue.show_lines = spy  # type: ignore[method-assign]
        await type_and_send(pilot, "summarize @big")
        await wait_for(pilot, lambda: not screen.busy, timeout=30)
        card = screen.chat.query(ToolCallCard).first()
        assert card.call.state is CallState.success
        assert card.result is not None and card.result.return_display.title == "Read 3400 file(s)"
    counts = [int(m.group(1).replace(",", "")) for line in drawn
              for m in [re.search(r"│ read ([\d,]+) of 3,400 files", line)] if m]
    assert counts == sorted(counts) and len(set(counts)) >= 2 and counts[-1] == 3400, counts
    assert any("read_many_files" in line or "ReadManyFiles" in line for line in drawn)
    assert any(re.search(r"│ read [\d,]+ of 3,400 files", header) for header in cards), cards


async def test_a_running_commands_card_shows_its_time_and_last_line_as_they_change(root: Path, tmp_path: Path) -> None:
    """The card of a running call is redrawn on its own (every half second), not only when the call changes
    state: its time grows and its last output line follows the command."""
    from tests.fakes.scripted_model import call

    # Each line stays a whole redraw period and more, so a loaded machine still draws several of them.
    command = "for i in 1 2 3 4 5 6; do echo tick $i; sleep 0.7; done"
    model = ScriptedModel().add(call("run_shell_command", command=command)).add(text("Ran it."))
    app = make_app(root, tmp_path, model, approval_mode="yolo")
    async with app.run_test(size=(120, 36)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "run the ticks")
        await wait_for(pilot, lambda: screen.chat.query(ToolCallCard), timeout=30)
        card = screen.chat.query(ToolCallCard).first()
        shown: list[str] = []

        def finished() -> bool:
            shown.append(str(card.header.render()))
            return not screen.busy

        await wait_for(pilot, finished, timeout=60)
        running = [line for line in shown if "running" in line]
        times = {re.search(r"running (\S+)", line).group(1) for line in running}  # type: ignore[union-attr]
        assert len(times) >= 2  # the time moved while it ran
        ticks = [int(m.group(1)) for line in running for m in [re.search(r"tick (\d)", line)] if m]
        assert ticks == sorted(ticks) and len(set(ticks)) >= 2, ticks  # the last line followed the command
