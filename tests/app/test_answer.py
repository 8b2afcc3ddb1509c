"""Long answers stream in segments: finished ones are frozen into one widget, the text stays whole."""

from __future__ import annotations

from pathlib import Path

from gemini_tui.app.widgets.answer import SEGMENT_CHARS, AnswerBlock, FrozenMarkdown, StreamedMarkdown, segment_cut
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes.scripted_model import ScriptedModel, text


def test_segments_are_cut_at_paragraph_breaks_outside_code_fences() -> None:
    assert segment_cut("para\n\nmore") == len("para\n\n")
    assert segment_cut("para\nmore") == 0
    assert segment_cut("one\n\n```python\nx = 1\n\ny = 2") == len("one\n\n")
    assert segment_cut("```python\nx = 1\n```\n\ntail") == len("```python\nx = 1\n```\n\n")


async def test_long_answer_is_frozen_in_segments(root: Path, tmp_path: Path) -> None:
    section = "## Part {n}\n\nSome text about part {n}, long enough to matter.\n\n```python\nprint({n})\n```\n\n"
    document = "".join(section.format(n=n) for n in range(200))
    assert len(document) > 3 * SEGMENT_CHARS
    app = make_app(root, tmp_path, ScriptedModel().add(text(document, 80)))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "long")
        await wait_for(pilot, lambda: not screen.busy, timeout=30)
        answer = screen.chat.query_one(AnswerBlock)
        assert answer.text == document
        frozen = answer.query_one(FrozenMarkdown)
        assert len(frozen.segments) >= 3
        live = answer.query_one(StreamedMarkdown)
        assert "".join(frozen.segments) + live.text == document
        assert len(answer.children) == 2  # one frozen widget, one live Markdown
        lines = frozen.lines_for(90)
        assert any("Part 0" in line.text for line in lines)


async def test_answers_of_old_turns_are_frozen(root: Path, tmp_path: Path) -> None:
    from gemini_tui.app.widgets.chat import LIVE_TURNS

    model = ScriptedModel()
    for n in range(LIVE_TURNS + 3):
        model.add(text(f"answer **{n}**\n\n- item\n"))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        for n in range(LIVE_TURNS + 3):
            await type_and_send(pilot, f"q{n}")
            await wait_for(pilot, lambda: not screen.busy)
        answers = list(screen.chat.query(AnswerBlock))
        live = [a for a in answers if a.query(StreamedMarkdown)]
        assert len(live) == LIVE_TURNS
        frozen = answers[0].query_one(FrozenMarkdown)
        assert frozen.segments == ["answer **0**\n\n- item\n"]
