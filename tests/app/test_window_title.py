"""WindowTitle: the title stack is pushed at start and popped at exit, and for terminals without a stack the title
found before the app's first one (or an empty one) is written just before the pop, whatever titles came between."""

from __future__ import annotations

import random

from gemini_tui.app.window_title import POP, PUSH, WindowTitle, title_sequence, tmux_pane_title


def test_generated_runs_give_the_title_back() -> None:
    rng = random.Random(3)
    alphabet = ["gemini-tui", "✋ action required", "\x07", "\x1b\\", "\x1b]0;x", "\n", "é", " "]
    for run in range(300):
        writes: list[str] = []
        asked: list[int] = []
        found = rng.choice([None, "", "vm", "my shell \x1b]2;evil\x07"])

        def find(found: str | None = found, asked: list[int] = asked) -> str | None:
            asked.append(1)
            return found

        title = WindowTitle(writes.append, find)
        title.save()
        titles = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 5))) for _ in range(rng.randrange(4))]
        for text in titles:
            title.set(text)
        title.restore()
        title.restore()  # a second exit path writes nothing more
        assert writes[0] == PUSH and writes[-1] == POP and writes.count(POP) == 1, run
        assert len(asked) == (1 if titles else 0)  # asked once, before the first title, and only if one is set
        if titles:
            assert writes[-2] == title_sequence(found or "")
            assert len(writes) == len(titles) + 3
        else:
            assert writes == [PUSH, POP]  # nothing changed: nothing but the stack's balance
        for sequence in writes[1:-1]:  # one sequence each: nothing inside can end it or start another
            assert sequence.startswith("\x1b]2;") and sequence.endswith("\x07")
            assert sequence[4:-1].isprintable() or not sequence[4:-1]


def test_the_found_title_is_asked_of_tmux_only_inside_it() -> None:
    assert tmux_pane_title({}) is None
    assert tmux_pane_title({"TMUX": "/tmp/none,1,0"}) is None  # no pane named: not asked
    # a pane of a server that is not there: tmux answers with an error, taken as not found
    assert tmux_pane_title({"TMUX": "/nonexistent/socket,1,0", "TMUX_PANE": "%0", "PATH": "/usr/bin:/bin"}) is None
