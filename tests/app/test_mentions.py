"""`@path` mentions: parsed from the prompt, read through read_many_files and sent along with the text."""

from __future__ import annotations

from pathlib import Path

from gemini_tui.core.ground.mentions import find_mentions
from gemini_tui.core.ground.parts import TextPart
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes.scripted_model import ScriptedModel, text


def test_find_mentions() -> None:
    assert find_mentions("read @a.py and @dir/b\\ c.txt, not me@example.com") == ["a.py", "dir/b c.txt"]
    # a quoted path, punctuation after a mention, an escaped `\@`
    assert find_mentions('@"my dir/a b.txt", see @x.py. \\@not-me') == ["my dir/a b.txt", "x.py"]


async def test_at_path_inlines_the_file(root: Path, tmp_path: Path) -> None:
    (root / "notes.md").write_text("secret sauce\n")
    model = ScriptedModel().add(text("Got it."))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "summarize @notes.md please")
        await wait_for(pilot, lambda: not screen.busy and model.requests)
    sent = model.requests[0].contents[0].parts
    joined = "".join(p.text for p in sent if isinstance(p, TextPart))
    assert joined.startswith("summarize @notes.md please")
    assert "secret sauce" in joined


async def test_at_path_ends_the_content_once(root: Path, tmp_path: Path) -> None:
    (root / "notes.md").write_text("secret sauce\n")
    model = ScriptedModel().add(text("Got it."))
    app = make_app(root, tmp_path, model)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        await type_and_send(pilot, "summarize @notes.md")
        await wait_for(pilot, lambda: not screen.busy and model.requests)
    sent = model.requests[0].contents[0].parts
    joined = "".join(p.text for p in sent if isinstance(p, TextPart))
    assert joined.count("--- End of content ---") == 1
    assert joined.rstrip().endswith("--- End of content ---")



async def test_the_offline_model_shows_what_mentions_attached(root: Path, tmp_path: Path) -> None:
    """In the app as in headless: the offline model answers from the attached files, for generated spellings."""
    from gemini_tui.app.widgets.answer import AnswerBlock
    from gemini_tui.core.models.offline import HELP_TEXT, OfflineModel
    from tests.core.models.test_offline_mentions import FILES, generated_cases, make_root

    app = make_app(make_root(root), tmp_path, OfflineModel(root))  # type: ignore[arg-type]
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        for number, case in enumerate(generated_cases(seed=7)[1::4], start=1):
            await type_and_send(pilot, case.prompt)
            await wait_for(pilot, lambda n=number: not screen.busy and len(screen.chat.query(AnswerBlock)) == n)
            shown = screen.chat.query(AnswerBlock).last().text
            assert HELP_TEXT.splitlines()[0] not in shown, case.prompt
            assert all(f"{name}: " in shown and FILES[name].splitlines()[0] in shown for name in case.attached)
            assert all(f"Nothing was attached for @{name}." in shown for name in case.missing), case.prompt
