"""F1 help: every command's usage and help reads as written (a `|`, backticks, `<name>` in a cell), and its key
table is the README's keys table, listing every key the app binds."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownTable

from gemini_tui.app.main import GeminiApp
from gemini_tui.app.screens.diff_review import DiffReviewScreen
from gemini_tui.app.screens.help import KEYS, HelpScreen, code_cell, help_markdown, text_cell
from gemini_tui.app.screens.main_screen import MainScreen
from gemini_tui.app.slash_commands import COMMANDS, session_commands
from gemini_tui.app.widgets.confirm_bar import ConfirmBar
from gemini_tui.app.widgets.history_panel import HistoryPanel
from tests.app.app_driver import main_screen, make_app, wait_for
from tests.fakes.scripted_model import ScriptedModel

README = Path(__file__).resolve().parents[2] / "README.md"
PARSER = MarkdownIt("gfm-like")  # what Textual's Markdown widget parses with


def cell_text(inline: Token) -> str:
    return "".join(child.content for child in inline.children or [] if child.type in ("text", "code_inline"))


def tables(markdown: str) -> list[list[list[Token]]]:
    """Each table's rows (header first), each row its cells' inline tokens."""
    found: list[list[list[Token]]] = []
    inside = False
    for token in PARSER.parse(markdown):
        if token.type in ("table_open", "table_close"):
            inside = token.type == "table_open"
            found += [[]] if inside else []
        elif inside and token.type == "tr_open":
            found[-1].append([])
        elif inside and token.type == "inline":
            found[-1][-1].append(token)
    return found


def section_table(markdown: str, heading: str) -> list[list[Token]]:
    """The first table after `heading` (a Markdown heading line)."""
    at = markdown.index(heading)
    return tables(markdown[at:])[0]


def readable(text: str) -> str:
    return " ".join(text.split())


NASTY = ["|", "||", "`", "``", "<name>", "</x>", "<br>", "*", "**", "_", "\\", "\\|", "[a](b)", "&amp;", "#", "~~",
         "$", "!", "-", ">", "http://x.y/z", ":", "@", "{", "}", "%", "é", "→", "\t", "  "]


def nasty_text(rng: random.Random) -> str:
    words = [rng.choice(NASTY) if rng.random() < 0.5 else rng.choice(["show", "add", "a", "fact", "x1"])
             for _ in range(rng.randint(1, 8))]
    return "".join(w + rng.choice(["", " ", "|", ""]) for w in words).strip() or "x"


def test_generated_cells_read_exactly_as_written() -> None:
    rng = random.Random(14)
    for _ in range(2000):
        usage, what = nasty_text(rng), nasty_text(rng)
        (table,) = tables(f"| command | what it does |\n|---|---|\n| {code_cell(usage)} | {text_cell(what)} |\n")
        assert len(table[1]) == 2, (usage, what)  # the row kept its two cells
        key, description = table[1]
        assert [child.type for child in key.children or []] == ["code_inline"], usage
        assert key.children[0].content.strip() == readable(usage), usage  # type: ignore[index]
        assert all(child.type in ("text", "softbreak") for child in description.children or []), what
        assert cell_text(description) == readable(what), what


def test_every_command_in_help_reads_as_written_built_in_and_custom() -> None:
    rng = random.Random(1)
    custom = {f"cmd{i}:{nasty_text(rng).replace(' ', '')}": nasty_text(rng) for i in range(40)}
    custom["git:msg"] = "Write a commit message | for `staged` changes <file> (project)"
    markdown = help_markdown(custom, [(cmd.usage, cmd.help) for cmd in COMMANDS.values()])
    rows = section_table(markdown, "## Slash commands")[1:]
    assert len(rows) == len(COMMANDS)
    for row, command in zip(rows, COMMANDS.values(), strict=True):
        assert len(row) == 2 and cell_text(row[0]) == command.usage and cell_text(row[1]) == command.help
    rows = section_table(markdown, "## Custom commands")[1:]
    assert len(rows) == len(custom)
    for row, (name, what) in zip(rows, custom.items(), strict=True):
        assert len(row) == 2 and cell_text(row[0]).strip() == readable(f"/{name}")
        assert cell_text(row[1]) == readable(what)


def readme_keys_section() -> str:
    text = README.read_text(encoding="utf-8")
    return text[text.index("## Keys"):]


def test_the_readme_keys_table_is_the_help_keys_table() -> None:
    readme = [[token.content for token in row] for row in section_table(readme_keys_section(), "## Keys")]
    shown = [[token.content for token in row] for row in section_table(help_markdown(), "## Keys")]
    assert readme == shown  # same keys, same meaning, same order
    assert readme[1:] == [list(row) for row in KEYS]


BINDING_NAMES = {"escape": "Esc", "pageup": "PageUp", "pagedown": "PageDown", "left": "←", "right": "→",
                 "up": "Up", "down": "Down", "home": "Home", "end": "End", "tab": "Tab", "space": "space",
                 "right_square_bracket": "]", "left_square_bracket": "["}


def key_name(key: str) -> str:
    """A binding's key as the keys table writes it: `ctrl+home` -> `Ctrl+Home`, `A` -> `A`."""
    parts = key.split("+")
    *mods, last = parts
    name = BINDING_NAMES.get(last, last.upper() if mods or len(last) > 1 else last)
    return "+".join([*(m.capitalize() for m in mods), name])


def test_every_key_the_app_binds_is_in_the_keys_table() -> None:
    names = {child.content for row in section_table(readme_keys_section(), "## Keys")[1:] for cell in row
             for child in cell.children or [] if child.type == "code_inline"}
    owners: list[Any] = [GeminiApp, MainScreen, ConfirmBar, DiffReviewScreen, HistoryPanel]
    missing = []
    for owner in owners:
        for binding in owner.BINDINGS:
            for key in binding.key.split(","):
                if key_name(key.strip()) not in names:
                    missing.append(f"{owner.__name__}: {key} ({binding.description})")
    assert not missing, missing


async def test_f1_help_draws_each_command_row_whole(root: Path, tmp_path: Path) -> None:
    commands = root / ".gemini" / "commands"
    commands.mkdir(parents=True)
    (commands / "pipe.toml").write_text('description = "Pick one: a|b|`c` <tag>"\nprompt = "x"\n')
    app = make_app(root, tmp_path, ScriptedModel())
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: main_screen(pilot).ready)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        help_text = app.screen.query_one("#help-text", Markdown)
        await wait_for(pilot, lambda: len(help_text.query(MarkdownTable)) >= 4)
        drawn = []
        for table in help_text.query(MarkdownTable):
            headers, rows = table._get_headers_and_rows()
            drawn.append((headers[0].plain, [[cell.plain for cell in row] for row in rows]))
        keys, forms, builtin, custom = drawn
        assert keys[1] == [[cell_text(c) for c in row] for row in section_table(help_markdown(), "## Keys")[1:]]
        assert all(len(row) == 2 for _, rows in drawn for row in rows)
        assert [row[0] for row in forms[1]] == ["@path", "!command"]
        assert {row[0]: row[1] for row in builtin[1]} == {c.usage: c.help for c in COMMANDS.values()}
        assert builtin[1][[c.name for c in COMMANDS.values()].index("model")] == [
            "/model [name]", "Show the model and what its provider offers, or switch it for the next request: "
            "/model <name> [--no-tools]"]
        expected = session_commands(main_screen(pilot).session)["pipe"]
        assert expected.startswith("Pick one: a|b|`c` <tag>")
        assert ["/pipe", expected] in custom[1]
        assert ["PageUp / PageDown", "scroll the chat; the prompt keeps the focus"] in keys[1]
        assert any(row[0] == "Esc Esc (idle)" for row in keys[1])
