"""The app's stylesheets are read once on the way to a session's first frame, not again for each session's screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.css.stylesheet import Stylesheet

from tests.app.app_driver import wait_for
from tests.app.test_several_sessions import opened, window
from tests.fakes.scripted_model import ScriptedModel


@pytest.fixture
def reparses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts full reparses of every stylesheet (each re-reads all the app's and widgets' CSS), then does them."""
    count: list[int] = []
    reparse = Stylesheet.reparse

    def counted(self: Stylesheet) -> None:
        count.append(1)
        reparse(self)

    monkeypatch.setattr(Stylesheet, "reparse", counted)
    return count


def looks(screen: Any) -> tuple[str, ...]:
    """What the status line and the prompt look like, as their computed styles say."""
    return tuple(str(widget.styles.background) + str(widget.styles.color)
                 for widget in (screen.status, screen.prompt.input))


async def test_sessions_first_frames_do_not_reread_the_stylesheets(root: Path, tmp_path: Path,
                                                                    reparses: list[int]) -> None:
    app = window(root, tmp_path, ScriptedModel([]), ScriptedModel([]))
    async with app.run_test(size=(100, 30)) as pilot:
        first = await opened(pilot, app, 1)
        await pilot.press("ctrl+n")
        second = await opened(pilot, app, 2)
        await app.sessions.show(first)
        await pilot.pause()
        assert not reparses, f"{len(reparses)} full reparses on the way to two sessions' first frames"
        # the second session's screen, styled as it mounted, looks like the first
        assert looks(second) == looks(first)
        # a theme change still restyles every session (that one does re-read the stylesheets)
        before = looks(first)
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await wait_for(pilot, lambda: looks(first) != before)
        await app.sessions.show(second)  # a hidden session's screen is restyled when it comes to the front
        await wait_for(pilot, lambda: looks(second) == looks(first))
        assert reparses
