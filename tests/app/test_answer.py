"""Answers are drawn by one renderer, block by block, whatever the chunks they arrive in.

The mechanism under test: streamed text is split into top-level Markdown blocks; a block followed by another is
drawn once and kept, the last one is drawn again as it grows. The property that must hold for any text and any
chunking: at every moment the widget shows exactly what Rich draws for the whole text received so far."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from gemini_tui.app.widgets.answer import (
    TAKE_CHARS,
    AnswerBlock,
    MarkdownText,
    _Tokens,
    markdown_parser,
    markdown_styles,
    split_blocks,
)
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes.scripted_model import ScriptedModel, text
from tests.sweep import cases

WORDS = ["scheduler", "read", "**bold**", "*soft*", "`code()`", "[spec](https://example.com/s)", "call", "edit",
         "~~old~~", "path/to/file.py", "1.", "-", "#", "|", ">", "value", "done", "List<String>", "<br>",
         "<kbd>C</kbd>"]


def words(rng: random.Random, low: int = 2, high: int = 9) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high))).strip() or "text"


def element(rng: random.Random) -> str:
    """One Markdown element of the kinds a model writes, with the awkward cases among them."""
    kind = rng.randrange(12)
    if kind == 0:
        return "#" * rng.randint(1, 4) + " " + words(rng, 1, 4)
    if kind == 1:
        return "\n".join(words(rng) for _ in range(rng.randint(1, 3)))
    if kind in (2, 3):  # bullet or ordered list, tight or loose, sometimes nested
        start = rng.randint(1, 9)
        gap = "\n\n" if rng.random() < 0.4 else "\n"
        items = []
        for n in range(rng.randint(1, 4)):
            marker = "-" if kind == 2 else f"{start + n}."
            item = f"{marker} {words(rng)}"
            if rng.random() < 0.3:
                item += f"\n  - {words(rng, 1, 3)}"
            items.append(item)
        return gap.join(items)
    if kind == 4:
        language = rng.choice(["python", "bash", "", "json"])
        body = ["def f(x):", "", "# not a heading", "- not a list", "    return x", "| a | b |"]
        return f"```{language}\n" + "\n".join(rng.sample(body, rng.randint(1, len(body)))) + "\n```"
    if kind == 5:
        columns = rng.randint(2, 4)
        head = "| " + " | ".join(words(rng, 1, 2) for _ in range(columns)) + " |"
        rule = "|" + "|".join(rng.choice(["---", ":---", "---:", ":---:"]) for _ in range(columns)) + "|"
        rows = ["| " + " | ".join(words(rng, 1, 3) for _ in range(columns)) + " |" for _ in range(rng.randint(1, 4))]
        return "\n".join([head, rule, *rows])
    if kind == 6:
        return "\n".join("> " + words(rng) for _ in range(rng.randint(1, 3)))
    if kind == 7:
        return rng.choice(["---", "***", "___"])
    if kind == 8:
        return words(rng, 1, 4) + "\n" + rng.choice(["===", "---"])
    if kind == 9:
        return rng.choice(["    indented code\n    more code", "<details>\n<summary>More</summary>\nbody\n</details>"])
    if kind == 10:
        return "1. first\n\n2"  # a list, then a line that only later shows it continues the list
    return words(rng, 1, 3) + "  \n" + words(rng, 1, 3)  # a hard line break


def document(rng: random.Random) -> str:
    parts = [element(rng) for _ in range(rng.randint(1, 9))]
    text = parts[0]
    for part in parts[1:]:
        text += rng.choice(["\n\n", "\n\n", "\n\n", "\n", "\n\n\n"]) + part
    return text + rng.choice(["", "\n", "\n\n"])


def chunks(rng: random.Random, text: str) -> list[str]:
    out, position = [], 0
    while position < len(text):
        size = rng.choice([1, 2, 3, 7, 13, 40, 120, 400])
        out.append(text[position:position + size])
        position += size
    return out


def line_cuts(text: str) -> list[str]:
    """`text` in pieces that end after each line's first, second, third and fourth character, half-way through it
    and at its end: each line is seen as Markdown decides what kind of line it is (`1` before its `.`, a lone `|`,
    two backticks of three, four spaces of code) and with its inline marks half-open (`**bo`, `[spec](htt`)."""
    pieces, start = [], 0
    for line in text.splitlines(keepends=True):
        cut = start
        for end in sorted({1, 2, 3, 4, len(line) // 2, len(line)}):
            if cut < start + end <= start + len(line):
                pieces.append(text[cut:start + end])
                cut = start + end
        start += len(line)
    assert "".join(pieces) == text
    return pieces


class Page(App[None]):
    # as in the chat: the scrollbar's column is kept, so the text's width does not flip as it comes and goes
    CSS = "#page { scrollbar-gutter: stable; }"

    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="page")


def whole(widget: MarkdownText, text: str, width: int) -> list[list[tuple[str, str]]]:
    """What Rich draws for `text` in one piece, as the widget would (same console, style and code theme)."""
    console = widget.app.console
    markdown = _Tokens(markdown_parser().parse(text), "monokai")  # Rich's Markdown, the widget's parser settings
    with console.use_theme(markdown_styles(widget.app.current_theme.accent)):
        lines = console.render_lines(markdown, console.options.update_width(width), style=widget.rich_style,
                                     pad=True)
    return [styled(line) for line in lines]


def styled(segments: Any) -> list[tuple[str, str]]:
    """A line as runs of text in one style (the style as Rich writes it, so a change of colour or weight counts as a
    difference), adjacent runs of the same style joined: segments split differently but drawing the same cells
    give the same runs, and two lines give the same runs exactly when they draw the same cells."""
    runs: list[tuple[str, str]] = []
    for segment in segments:
        if not segment.text:
            continue
        style = "" if segment.style is None else str(segment.style)
        if runs and runs[-1][0] == style:
            runs[-1] = (style, runs[-1][1] + segment.text)
        else:
            runs.append((style, segment.text))
    return runs


def drawn(widget: MarkdownText, width: int) -> list[list[tuple[str, str]]]:
    return [styled(strip._segments) for strip in widget.lines_for(width)]


def test_blocks_split_at_top_level_and_keep_every_character() -> None:
    rng = random.Random(7)
    for _ in range(300):
        text = document(rng)
        blocks = split_blocks(text)
        assert "".join(block.source for block in blocks) == text.replace("\r\n", "\n") or not text.strip()
        assert all(block.source for block in blocks)


@pytest.mark.timeout(600)  # a part takes ~20 s on a quiet machine; a loaded one is many times slower
@pytest.mark.parametrize("part", range(4))
async def test_streamed_text_always_draws_as_rich_draws_the_text_so_far(part: int) -> None:
    """240 generated documents in four parts of 60 (parts run side by side under `pytest -n`), each streamed in
    random chunks with the steps run at random moments; after every step the widget's lines equal Rich's drawing
    of everything received so far, and at the end of the whole."""
    rng = random.Random(2026 + part)
    app = Page()
    async with app.run_test(size=(130, 40)) as pilot:
        page = app.query_one("#page")
        for case in range(cases(60)):
            source = document(rng)
            width = rng.choice([24, 40, 61, 100])
            widget = MarkdownText()
            await page.mount(widget)
            received = ""
            # one case in twelve is drawn at every cut of every line (see line_cuts): every line is seen half-written
            fine = case % 12 == 0
            for piece in (chunks(rng, source) if not fine else line_cuts(source)):
                await widget.write(piece)
                received += piece
                if fine or rng.random() < 0.3:
                    widget._step()
                    assert drawn(widget, width) == whole(widget, received, width), (case, received)
            await widget.finish()
            assert widget.text == source
            assert drawn(widget, width) == whole(widget, source, width), (case, source)
            await widget.remove()
        await pilot.pause()


async def test_a_burst_is_taken_in_slices_and_refreshes_the_screen_once() -> None:
    rng = random.Random(3)
    burst = "\n\n".join(element(rng) for _ in range(600))
    assert len(burst) > 10 * TAKE_CHARS
    app = Page()
    async with app.run_test(size=(100, 30)) as pilot:
        start = "\n\n".join(f"line {n}" for n in range(40)) + "\n\n"  # taller than the page: no scrollbar to come
        widget = MarkdownText()
        await app.query_one("#page").mount(widget)
        await widget.write(start)
        await wait_for(pilot, lambda: widget._handle is None and widget.size.height > 30)
        refreshes: list[bool] = []  # the widget's own refreshes (Textual adds one when the size changes)
        stepping = [False]
        real_refresh, real_step = widget.refresh, widget._step

        def counted(*regions: Any, **options: Any) -> Any:
            if stepping[0]:
                refreshes.append(bool(options.get("layout")))
            return real_refresh(*regions, **options)

        def step() -> None:
            stepping[0] = True
            try:
                real_step()
            finally:
                stepping[0] = False

        widget.refresh = counted  # type: ignore[method-assign]
        widget._step = step  # type: ignore[method-assign]
        taken: list[int] = []
        real_take = widget._take

        def measured(added: str, final: bool) -> None:
            taken.append(len(added))
            real_take(added, final)

        widget._take = measured  # type: ignore[method-assign]
        await widget.write(burst)
        await wait_for(pilot, lambda: widget._handle is None and not widget._pending, timeout=30)
        assert len(taken) >= len(burst) // TAKE_CHARS
        assert max(taken) <= TAKE_CHARS
        assert refreshes == [True]  # the screen is dirtied once, when all of the burst is drawn
        assert drawn(widget, 98) == whole(widget, start + burst, 98)


async def test_a_new_width_redraws_every_block() -> None:
    rng = random.Random(11)
    source = "\n\n".join(element(rng) for _ in range(80))
    app = Page()
    async with app.run_test(size=(120, 30)) as pilot:
        widget = MarkdownText(source)
        await app.query_one("#page").mount(widget)
        await pilot.pause()
        for size in ((70, 30), (44, 20), (120, 30)):
            await pilot.resize_terminal(*size)
            await wait_for(pilot, lambda: widget._handle is None, timeout=30)
            await pilot.pause()
            # the new height is laid out after the redraw: wait for the layout, which a loaded machine delays
            await wait_for(pilot, lambda: widget.size.height == len(widget.lines_for(widget.content_size.width)))
            width = widget.content_size.width
            assert drawn(widget, width) == whole(widget, source, width)
            assert widget.size.height == len(widget.lines_for(width))


async def test_html_in_an_answer_stays_visible_as_written() -> None:
    """Rich draws no HTML: parsed as HTML, `<details>` blocks, `List<String>` or `<br>` would vanish."""
    source = ("Press <kbd>Ctrl</kbd>; generics List<String>; a <br> tag.\n\n<details>\n<summary>Click</summary>\n"
              "Hidden body text\n</details>\n\n<div style='color:red'>html <b>bold</b></div>\n\nLast line.\n")
    app = Page()
    async with app.run_test(size=(100, 30)) as pilot:
        widget = MarkdownText(source)
        await app.query_one("#page").mount(widget)
        await pilot.pause()
        shown = " ".join(strip.text.strip() for strip in widget.lines_for(90))
        for fragment in ("<kbd>Ctrl</kbd>", "List<String>", "<br>", "<details>", "Hidden body text",
                         "<div style='color:red'>html <b>bold</b></div>", "Last line."):
            assert fragment in shown, fragment


TABLE_ANSWER = ("Here are the calls:\n\n| tool | calls |\n|---|---:|\n| read_file | 12 |\n| replace | 2 |\n\n"
                "Some text between.\n\n" * 3 + "| last | table |\n|---|---|\n| a | b |\n")


async def test_tables_in_one_answer_are_drawn_one_way(root: Path, tmp_path: Path) -> None:
    """Streamed in tiny chunks, new or old: every table in the chat is drawn by the same renderer, and no
    Textual Markdown widget is left in the chat."""
    model = ScriptedModel().add(text(TABLE_ANSWER, 3)).add(text("second answer\n\n| x | y |\n|---|---|\n| 1 | 2 |\n"))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(100, 50)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "tables please")
        await wait_for(pilot, lambda: not screen.busy, timeout=30)
        await type_and_send(pilot, "again")
        await wait_for(pilot, lambda: not screen.busy, timeout=30)
        await wait_for(pilot, lambda: all(a._handle is None for a in screen.chat.query(AnswerBlock)))
        answers = list(screen.chat.query(AnswerBlock))
        assert [a.text for a in answers] == [TABLE_ANSWER, "second answer\n\n| x | y |\n|---|---|\n| 1 | 2 |\n"]
        assert not list(screen.chat.query(Markdown))
        for answer in answers:
            width = answer.content_size.width
            assert drawn(answer, width) == whole(answer, answer.text, width)
        first = [strip.text for strip in answers[0].lines_for(answers[0].content_size.width)]
        headers = [line for line in first if "tool" in line and "calls" in line]
        assert len(headers) == 3
        assert len({line.strip() for line in headers}) == 1  # the same table drawn the same way each time


async def test_each_answer_is_one_widget_however_long(root: Path, tmp_path: Path) -> None:
    section = "## Part {n}\n\nSome text about part {n}.\n\n```python\nprint({n})\n```\n\n"
    document_text = "".join(section.format(n=n) for n in range(300))
    app = make_app(root, tmp_path, ScriptedModel().add(text(document_text, 80)))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "long")
        await wait_for(pilot, lambda: not screen.busy, timeout=30)
        answer = screen.chat.query_one(AnswerBlock)
        await wait_for(pilot, lambda: answer._handle is None, timeout=30)
        assert answer.text == document_text
        assert not answer.children
        assert answer.block_count == 900
        lines = [strip.text for strip in answer.lines_for(answer.content_size.width)]
        assert any("Part 0" in line for line in lines) and any("Part 299" in line for line in lines)


async def test_a_new_theme_redraws_the_lines_in_its_colours(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path, ScriptedModel().add(text("An answer with `code` and **bold**.\n\n- one\n- two\n")))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "hello")
        await wait_for(pilot, lambda: not screen.busy)
        answer = screen.chat.query_one(AnswerBlock)
        await wait_for(pilot, lambda: answer._handle is None)

        def backgrounds() -> set[str]:
            return {str(segment.style.bgcolor) for line in answer._lines for segment in line if segment.style}

        for theme in ("textual-light", "nord", "textual-dark"):
            app.theme = theme
            await wait_for(pilot, lambda theme=theme: answer._key is not None and answer._key[1] == theme)
            await pilot.pause()
            assert backgrounds() == {str(answer.rich_style.bgcolor)}, theme
            rendered = [str(strip.text) for strip in (answer.render_line(y) for y in range(answer.size.height))]
            assert any("one" in line for line in rendered)
