"""End to end in a real terminal (tmux): a one-line 17 KB file whose change lies ~70 wrapped rows down. For each
kind of change (a value replaced, a field inserted or deleted, two places changed) at generated sizes, unified
and side by side, the review brings the removed side's text at the change and the added side's into view: on
opening, with ] and [, after v, and not wrapped (w); nothing is approved (the file is left as it was)."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from gemini_tui.app.typing_guard import GRACE_PERIOD
from tests.e2e.terminal import send, start_app
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

GRACE = GRACE_PERIOD + 0.3
ITEMS = ", ".join(f'{{"path": "/api/v1/item/{n}", "status": {200 + n % 3}, "cache": false}}' for n in range(300))
LINE = '{"routes": [' + ITEMS + "]}"
# kind: (old_string, new_string); each is found on its own side only, so seeing it says which side is in view.
# An insertion has no removed text and a deletion no added text: there, the text around the place is what shows.
KINDS = {
    "replace": ('item/151", "status": 201', 'item/151", "status": 300'),
    "insert": ('item/151", "status": 201, "cache"', 'item/151", "status": 201, "note": "moved", "cache"'),
    "delete": ('item/151", "status": 201, "cache": false}', 'item/151", "status": 201}'),
    "two places": ('item/151", "status": 201, "cache"', 'item/151", "owner": "ops", "status": 301, "cache"'),
}
SIDE_BY_SIDE_FROM = 140  # columns (the review's own threshold)


def generated_cases() -> list[tuple[str, int, int]]:
    """(kind, columns, rows): every kind once per layout, at sizes drawn from a seeded generator."""
    rng = random.Random(32)
    cases = []
    for low, high in ((70, SIDE_BY_SIDE_FROM - 1), (SIDE_BY_SIDE_FROM, 230)):
        for kind in KINDS:
            cases.append((kind, rng.randint(low, high), rng.randint(20, 50)))
    return cases


def squeeze(code: str) -> str:
    return re.sub(r"\s+", "", code)  # a space at a wrapped row's end is cut with the row's padding


def sides(screen: str) -> list[str]:
    """The code the review shows, per side (one for unified, two side by side), its wrapped rows joined: what
    lies between the modal's borders, cut at each half's hunk marker, its gutter (number, sign or ↪) dropped."""
    halves: list[list[str]] = []
    for line in screen.splitlines():
        if line.count("█") < 2 or "▌" not in line:
            continue
        inner = line[line.index("█") + 1:line.rindex("█")]
        parts = inner.split("▌")[1:]
        for index, part in enumerate(parts):
            while len(halves) <= index:
                halves.append([])
            code = re.sub(r"^\s*\d*\s*[-+↪ ] ", "", part, count=1)
            halves[index].append(code.rstrip(" ▁▂▃▄▅▆▇█"))
    return [squeeze("".join(rows)) for rows in halves]


def shows(screen: str, code: str) -> bool:
    return any(squeeze(code) in side for side in sides(screen))


@pytest.mark.parametrize(("kind", "columns", "rows"), generated_cases(),
                         ids=[f"{kind}-{columns}x{rows}" for kind, columns, rows in generated_cases()])
def test_each_side_of_a_change_in_a_long_wrapped_line_is_brought_into_view(root: Path, tmp_path: Path, kind: str,
                                                                            columns: int, rows: int) -> None:
    old, new = KINDS[kind]
    edited = LINE.replace(old, new)
    assert LINE.count(old) == 1 and squeeze(old) not in squeeze(edited) and squeeze(new) not in squeeze(LINE)
    target = root / "routes.min.json"
    target.write_text(LINE + "\n")
    assert len(LINE) > 17_000
    with FakeGeminiServer() as server:
        server.script(reply(call("replace", file_path=str(target), old_string=old, new_string=new)),
                      reply(text("Left as it was.")))
        with start_app(root, tmp_path, server, columns, rows) as terminal:
            send(terminal, "update item 151")
            terminal.wait_for("Confirm Edit")
            split = columns >= SIDE_BY_SIDE_FROM

            def side_by_side(screen: str) -> bool:
                return "side by side" in screen and "would hide" not in screen

            def in_view(screen: str, removed: bool, added: bool) -> bool:
                """The removed side's text (`removed`) and the added side's (`added`) are on screen; side by side
                both always are (the halves wrap alike)."""
                both = side_by_side(screen)
                return (shows(screen, old) or not (removed or both)) and (shows(screen, new) or not (added or both))

            def check(key: str, removed: bool, added: bool, state: Callable[[str], bool] = lambda s: True) -> None:
                terminal.keys(key)
                time.sleep(0.3)
                # a loaded machine may draw the key's frame late: the screen gets to show it (or fails with it)
                terminal.wait_for(lambda s: state(s) and in_view(s, removed, added), timeout=8)

            # opened at the removed side of the change (once laid out: the first frame may precede the layout)
            terminal.wait_for(lambda s: in_view(s, True, False) and side_by_side(s) == split)
            time.sleep(GRACE)
            check("]", False, True)
            check("[", True, False)
            # the other layout (side by side fits from 70 columns when wrapping): the same change in view
            check("v", True, False, lambda s: side_by_side(s) != split)
            check("]", False, True)
            check("[", True, False)
            # not wrapped (side by side gives way to unified: the line is wider than a half): the two lines scroll
            # sideways together to the change, both in view
            check("w", True, True, lambda s: "not wrapped" in s or "no wrap" in s)
            check("]", True, True)
            terminal.keys("n")
            terminal.wait_for("Left as it was.")
    assert target.read_text() == LINE + "\n"
