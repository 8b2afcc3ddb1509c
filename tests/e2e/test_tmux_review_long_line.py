"""End to end in a real terminal (tmux): a one-line 17 KB file whose change lies ~70 wrapped rows down. The review
brings the wrapped row holding the change into view on each side, unified and side by side, on opening, with ]
and [, and after v; nothing is approved (the file is left as it was)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from gemini_tui.app.typing_guard import GRACE_PERIOD
from tests.e2e.terminal import Terminal, send, start_app
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

GRACE = GRACE_PERIOD + 0.3
ITEMS = ", ".join(f'{{"path": "/api/v1/item/{n}", "status": {200 + n % 3}, "cache": false}}' for n in range(300))
LINE = '{"routes": [' + ITEMS + "]}"
BEFORE = re.compile(r'item/151",\s*"status":\s*201')  # the removed line's text at the change
AFTER = re.compile(r'item/151",\s*"status":\s*300')  # the added line's


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
    return ["".join(rows) for rows in halves]


def shows(screen: str, pattern: re.Pattern[str]) -> bool:
    return any(pattern.search(side) for side in sides(screen))


def press(terminal: Terminal, key: str) -> str:
    terminal.keys(key)
    time.sleep(0.4)
    return terminal.screen()


@pytest.mark.parametrize("size", [(120, 40), (151, 45)], ids=["unified-120", "side-by-side-151"])
def test_the_change_in_a_long_wrapped_line_is_brought_into_view(root: Path, tmp_path: Path, size: tuple[int, int]
                                                                 ) -> None:
    target = root / "routes.min.json"
    target.write_text(LINE + "\n")
    assert len(LINE) > 17_000
    with FakeGeminiServer() as server:
        server.script(reply(call("replace", file_path=str(target), old_string='item/151", "status": 201',
                                 new_string='item/151", "status": 300')), reply(text("Left as it was.")))
        with start_app(root, tmp_path, server, *size) as terminal:
            send(terminal, "set item 151's status to 300")
            terminal.wait_for("Confirm Edit")
            split = size[0] >= 140  # side by side from 140 columns
            # opened at the removed text of the change (once laid out: the first frame may precede the layout)
            screen = terminal.wait_for(lambda s: shows(s, BEFORE) and ("side by side" in s) == split)
            if split:
                assert shows(screen, AFTER)  # both halves, the same wrapped rows
            time.sleep(GRACE)
            screen = press(terminal, "]")
            assert shows(screen, AFTER), screen
            screen = press(terminal, "[")
            assert shows(screen, BEFORE), screen
            screen = press(terminal, "v")  # the other layout: the same change in view
            assert ("side by side" in screen) != split
            assert shows(screen, BEFORE), screen
            if not split:
                assert shows(screen, AFTER), screen
            screen = press(terminal, "]")
            assert shows(screen, AFTER), screen
            screen = press(terminal, "[")
            assert shows(screen, BEFORE), screen
            terminal.keys("n")
            terminal.wait_for("Left as it was.")
    assert target.read_text() == LINE + "\n"
